import { SessionsOverview } from "../components/sessions/SessionsOverview";

export default function Home() {
  return <SessionsOverview />;
}
