/**
 * isatty(3) through the runtime's binding: node:tty's import alone costs
 * ~8 ms of every start-up. null where the binding is missing, for the caller
 * to decide another way.
 */
export function ttyBinding(fd: number): boolean | null {
  try {
    const binding = (process as unknown as { binding(name: string): { isTTY?(fd: number): boolean } }).binding(
      "tty_wrap",
    );
    if (typeof binding.isTTY === "function") return binding.isTTY(fd);
  } catch {}
  return null;
}
