import { LoginForm } from "../../components/shell/LoginForm";

export default function LoginPage() {
  return <LoginForm />;
}
