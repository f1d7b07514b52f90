import { AccountsPanel } from "../../components/accounts/AccountsPanel";

export default function AccountsPage() {
  return <AccountsPanel />;
}
