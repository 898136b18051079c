/** A room's workspace files, as each sandbox provider reaches them (paths checked and relative). */

export interface WrittenFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface FileEntry {
  path: string;
  bytes: number;
  kind: "file" | "dir" | "link" | "other";
  modifiedAt: string;
}

export interface FileOut {
  body: ReadableStream<Uint8Array>;
  bytes: number;
  type: string;
}

export interface WorkspaceFiles {
  /**
   * Streams `body` into `path`; `keepExisting`: a taken name gets a number
   * instead of being replaced. Past `maxBytes` it fails with a 413 and leaves
   * nothing written. `bytes`: the body's length as its request declared it
   * (at most `maxBytes`), when it did.
   */
  write(roomId: string, path: string, body: ReadableStream<Uint8Array>, opts: { keepExisting: boolean; maxBytes: number; bytes?: number }): Promise<WrittenFile>;
  read(roomId: string, path: string): Promise<FileOut>;
  list(roomId: string, dir: string): Promise<FileEntry[]>;
}
