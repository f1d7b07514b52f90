import { NotFound } from "../components/shell/NotFound";

export default function NotFoundPage() {
  return <NotFound />;
}
