import { BaseSequencer, type TestSpecification } from "vitest/node";
import { spread } from "./spread-files.ts";

/** Shared projects started before the rest of their group, as blocks. */
const FIRST = ["reliability"];

/**
 * The order files start in. vitest's own order runs a group's projects one after another (by name), longest
 * files first within each. That put the `worker` project last: its files run in workerd, and the modules each
 * file's fresh runtime loads are served by vitest's own process, one thread, so for its last two minutes the
 * run kept one core busy and left the other mostly idle. Here the projects whose files each get a process of
 * their own (node, worker) are spread through one another, each still longest first, so the
 * Worker's files are served while the others wait on the processes they start. Projects whose files share a
 * process (isolate: false) stay together: vitest hands a finished file's process to the next file only when
 * that file is of the same project, so spreading them out would start their shared modules anew each time.
 * They follow the spread files, but for the reliability suite, which goes first: its Worker restart files are
 * the run's longest (50-60 s each), and started last they were its tail.
 */
export default class SpreadSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return spread(await super.sort(files), FIRST);
  }
}
