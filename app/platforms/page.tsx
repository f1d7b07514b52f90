import { PlatformsPanel } from "../../components/platforms/PlatformsPanel";
import { TelemetryPanel } from "../../components/platforms/TelemetryPanel";

export default function PlatformsPage() {
  return (
    <>
      <PlatformsPanel />
      <div className="page">
        <TelemetryPanel />
      </div>
    </>
  );
}
