import type { TestProject } from "vitest/node";
import { startFakeExecutor } from "../../test/fakes/executor.ts";
import { startFakeModel } from "../../test/fakes/model.ts";

declare module "vitest" {
  export interface ProvidedContext {
    fakeModelUrl: string;
    fakeExecutorUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const model = await startFakeModel();
  const executor = await startFakeExecutor();
  project.provide("fakeModelUrl", model.url);
  project.provide("fakeExecutorUrl", executor.url);
  return async () => {
    await model.close();
    await executor.close();
  };
}
