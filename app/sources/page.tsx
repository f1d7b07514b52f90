import { SourcesPage } from "../../components/sources/SourcesPage";

export default function Sources() {
  return <SourcesPage />;
}
