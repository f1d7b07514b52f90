import { AuditLog } from "../../components/audit/AuditLog";

export default function AuditPage() {
  return <AuditLog />;
}
