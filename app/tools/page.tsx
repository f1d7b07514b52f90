import { Suspense } from "react";
import { ToolsCatalog } from "../../components/tools/ToolsCatalog";

export default function ToolsPage() {
  // useSearchParams (the ?session= scope) needs a Suspense boundary.
  return (
    <Suspense>
      <ToolsCatalog />
    </Suspense>
  );
}
