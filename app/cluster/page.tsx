import { ClusterPanel } from "../../components/cluster/ClusterPanel";

export default function ClusterPage() {
  return <ClusterPanel />;
}
