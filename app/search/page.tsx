import { SearchPage } from "../../components/search/SearchPage";

export default function Search() {
  return <SearchPage />;
}
