import { DataPage } from "../../components/data/DataPage";

export default function BotDataPage() {
  return <DataPage />;
}
