import { PlatformsPanel } from "../../components/platforms/PlatformsPanel";

export default function PlatformsPage() {
  return <PlatformsPanel />;
}
