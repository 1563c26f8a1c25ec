/** A tool that cannot be built as it stands: what is wrong, and what to do about it. */
export class BuildError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}
