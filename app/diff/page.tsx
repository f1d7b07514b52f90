import { DiffPage } from "../../components/diff/DiffPage";

/** /diff?a=<sessionId>[:<cycleId>]&b=<sessionId>[:<cycleId>] */
export default async function Diff({
  searchParams,
}: {
  searchParams: Promise<{ a?: string | string[]; b?: string | string[] }>;
}) {
  const { a, b } = await searchParams;
  const [refA, refB] = [typeof a === "string" ? a : "", typeof b === "string" ? b : ""];
  // Keyed by the pair: a link to another pair (a session diff's row) starts with its own inputs.
  return <DiffPage key={`${refA}\n${refB}`} a={refA} b={refB} />;
}
