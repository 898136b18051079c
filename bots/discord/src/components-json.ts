/** Discord's message components as Duet sends them (JSON, as the API takes them): button rows, and the Components V2 parts. */

export interface ButtonJson {
  type: 2;
  style: number;
  label: string;
  custom_id: string;
}
export interface RowJson {
  type: 1;
  components: ButtonJson[];
}

export interface TextDisplayJson {
  type: 10;
  content: string;
}
export interface SeparatorJson {
  type: 14;
  divider: boolean;
  spacing: 1 | 2;
}
export interface FileJson {
  type: 13;
  file: { url: string };
}
export type ContainerChild = TextDisplayJson | SeparatorJson | FileJson | RowJson;
export interface ContainerJson {
  type: 17;
  components: ContainerChild[];
}

/** What a message's `components` hold: button rows (classic) or its one container (V2). */
export type TopLevelJson = RowJson | ContainerJson;
