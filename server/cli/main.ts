// The command-line tool: `npm run -s maisaka -- <command>`. Only simulate's JSON lines go to stdout.
import { runMigrateCommand } from "./migrate";
import { runRerun } from "./rerun";
import { runSimulate } from "./simulate";

const usage = `usage: maisaka <command>
  simulate --script FILE [--session ID] [--private] [--speed N] [--follow-waits] [--server URL [--token T]]
  migrate
  rerun --session ID [--session ID …] | --all [--days N]  [--from CYCLE] [--config FILE] [--request FILE]
        [--continue-with stop|model|simulated] [--save]`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "simulate":
      return runSimulate(rest);
    case "migrate":
      return runMigrateCommand();
    case "rerun":
      return runRerun(rest);
    default:
      process.stderr.write(`${command ? `unknown command: ${command}\n` : ""}${usage}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`maisaka: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
