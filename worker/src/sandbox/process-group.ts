import { shellQuote } from "@duet/shared";

/**
 * A command as Duet hands it to the container, so that killing it ends it.
 *
 * The container runs a streamed command in a background subshell of the
 * session's shell, and its kill (DELETE /api/process/:id) sends SIGTERM to that
 * subshell alone: the command's children (the `sleep` of `sleep 600; make`, a
 * build's compilers) would live on, and the stream would wait for them forever.
 * So the command runs in a process group of its own (setsid), and the subshell
 * turns the SIGTERM into SIGKILL for the whole group. It then ends as usual,
 * its exit status 143 (128 + SIGTERM): what `wait` says when the SIGTERM
 * interrupts it, and said as well when the SIGTERM came before the subshell
 * reached `wait` (which would then report the group's SIGKILL, 137). A SIGTERM
 * that lands before the group exists is remembered and the group killed as
 * soon as it does.
 *
 * `bash -c` runs the command as the session's shell would (bash), with stdin,
 * stdout, stderr and the working directory it was given; shell state (a `cd`,
 * an `export`) stays inside, as it does in any background subshell, and so does
 * an `exit`, which would otherwise end the subshell before it reports.
 * The first line names the run, so that it can be found in the container's
 * process list, whose ids the container makes up.
 */
export function inProcessGroup(cmd: string, runId: string): string {
  return [
    `# duet run ${runId}`,
    `trap 'duet_stop=1; [ -z "$duet_pg" ] || kill -s KILL -- "-$duet_pg" 2>/dev/null' TERM`,
    `setsid bash -c ${shellQuote(cmd)} & duet_pg=$!`,
    `[ -z "$duet_stop" ] || kill -s KILL -- "-$duet_pg" 2>/dev/null`,
    `wait "$duet_pg"; duet_status=$?`,
    `[ -z "$duet_stop" ] || duet_status=143`,
    `(exit "$duet_status")`,
  ].join("\n");
}
