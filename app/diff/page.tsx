import { DiffPage } from "../../components/diff/DiffPage";

/** /diff?a=<sessionId>[:<cycleId>]&b=<sessionId>[:<cycleId>] */
export default async function Diff({
  searchParams,
}: {
  searchParams: Promise<{ a?: string | string[]; b?: string | string[] }>;
}) {
  const { a, b } = await searchParams;
  return <DiffPage a={typeof a === "string" ? a : ""} b={typeof b === "string" ? b : ""} />;
}
