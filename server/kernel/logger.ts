// The one logger shape every room writes to (the engine, the transports, the cluster): three levels of
// plain lines. A kernel port: the composition picks where the lines go; stderrLogger is the default.
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const stderrLogger: Logger = {
  info: (m) => process.stderr.write(`${m}\n`),
  warn: (m) => process.stderr.write(`${m}\n`),
  error: (m) => process.stderr.write(`${m}\n`),
};
