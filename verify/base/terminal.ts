/**
 * A pseudo-terminal for the probes where a terminal is the point (contract
 * §3: under --no-input nothing prompts, even where a person could answer).
 * The tool runs with stdin and stderr on a pty, stdout still verify's pipe;
 * a line sits unread in the terminal's input, and how much of it the tool
 * took is read back (FIONREAD), as with the FIFO verify gives other probes.
 *
 * The pty is opened by python3's standard library (pty, termios), the one
 * way without a native module: util-linux `script` was the alternative, but
 * it puts stdout on the terminal too, cannot say whether the tool read its
 * input, and starts the tool in a session of its own, out of reach of the
 * process-group kill. The helper stays in the run's group and session (it
 * makes the pty its controlling terminal, so /dev/tty is the pty), and
 * exits as the tool did. Where python3 or a pty is missing the probes are
 * skipped, saying so.
 */
import { readFileSync } from "node:fs";

/** What the pty saw: bytes the tool took from its input, and what it wrote to the terminal. */
export type TerminalSeen = { readonly read: number; readonly text: string } | { readonly unavailable: string };

const MARKER = "verify: no one is here to answer\n";

/** argv: result file, the tool's binary, its argv. Waits on the tool woken by SIGCHLD, not by polling. */
const HELPER = `
import fcntl, os, select, signal, struct, sys, termios, time
out, argv = sys.argv[1], sys.argv[2:]
try:
    master, slave = os.openpty()
except OSError as e:
    open(out, "w").write("unavailable os.openpty: %s" % e)
    sys.exit(0)
try:
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
except OSError:
    pass
a = termios.tcgetattr(slave)
a[1] &= ~termios.OPOST
a[3] &= ~termios.ECHO
termios.tcsetattr(slave, termios.TCSANOW, a)
marker = ${JSON.stringify(MARKER)}.encode()
def unread():
    return struct.unpack("i", fcntl.ioctl(slave, termios.FIONREAD, b"\\0\\0\\0\\0"))[0]
os.write(master, marker)
# The line reaches the terminal's input queue later, from a kernel worker: until it is there, a tool that
# never reads would seem to have read it. Waited for before the tool starts, with a bound.
waited = time.monotonic()
while unread() < len(marker):
    if time.monotonic() - waited > 5:
        open(out, "w").write("unavailable the pseudo-terminal did not take its input line within 5 s")
        sys.exit(0)
    time.sleep(0.001)
wake_r, wake_w = os.pipe()
os.set_blocking(wake_w, False)
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGCHLD, lambda *_: None)
pid = os.fork()
if pid == 0:
    os.dup2(slave, 0)
    os.dup2(slave, 2)
    for fd in (master, slave, wake_r, wake_w):
        if fd > 2:
            os.close(fd)
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
seen, status = bytearray(), None
def take():
    try:
        chunk = os.read(master, 65536)
    except OSError:
        return False
    if len(seen) < 65536:
        seen.extend(chunk)
    return bool(chunk)
while status is None:
    ready = select.select([master, wake_r], [], [])[0]
    if master in ready:
        take()
    if wake_r in ready:
        os.read(wake_r, 512)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
left = unread()
while select.select([master], [], [], 0)[0] and take():
    pass
with open(out, "wb") as f:
    f.write(b"read %d\\n" % (len(marker) - left) + bytes(seen))
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;

let python: Promise<string | null> | undefined;

/**
 * The python3 on PATH that opens the pty, asked once for the interpreter it
 * runs: a version manager's shim is a script that starts a shell and the
 * manager on every call, which would be paid on every terminal probe.
 */
export function ptyPython(): Promise<string | null> {
  python ??= (async () => {
    const found = Bun.which("python3");
    if (!found) return null;
    if ((await Bun.file(found).slice(0, 2).text()) !== "#!") return found;
    const p = Bun.spawn([found, "-c", "import sys; print(sys.executable)"], { stdout: "pipe", stderr: "ignore" });
    const real = (await new Response(p.stdout).text()).trim();
    return (await p.exited) === 0 && real ? real : found;
  })();
  return python;
}

/** The argv that runs `binary argv` on a pty, writing what it saw to `resultFile`. */
export const onTerminal = (python: string, resultFile: string, binary: string, argv: readonly string[]): string[] => [
  python,
  "-S",
  "-c",
  HELPER,
  resultFile,
  binary,
  ...argv,
];

/** What the helper wrote; a run killed before it could write saw nothing worth reporting beyond its hang. */
export function readTerminal(resultFile: string): TerminalSeen {
  let text: string;
  try {
    text = readFileSync(resultFile, "latin1");
  } catch {
    return { read: 0, text: "" };
  }
  if (text.startsWith("unavailable ")) return { unavailable: text.slice("unavailable ".length) };
  const newline = text.indexOf("\n");
  return { read: Number(text.slice(5, newline)) || 0, text: Buffer.from(text.slice(newline + 1), "latin1").toString() };
}
