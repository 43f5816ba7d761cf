/** The `vils` subcommand registry: each entry is a thin adapter over the library code. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  run(argv: string[]): Promise<number>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
