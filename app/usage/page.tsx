import { UsagePage } from "../../components/usage/UsagePage";

export default function Usage() {
  return <UsagePage />;
}
