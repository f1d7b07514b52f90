import { NotFound } from "../components/shell/NotFound";

export const metadata = { title: "Not found · Maisaka" };

export default function NotFoundPage() {
  return <NotFound />;
}
