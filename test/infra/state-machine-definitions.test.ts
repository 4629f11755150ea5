/**
 * The pipelines' ASL objects, as the local runner receives them, pass the runner's own definition
 * checks (aws-local-stepfunctions, asl-validator). The local stack skips the check at each start
 * (infra/local/sfn-local.ts); a definition that fails it fails here.
 */
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { moduleImportDefinition, moduleImportTasks } from '../../functions/pipeline/module-import.definition.ts';
import {
  siteExportDefinition,
  siteExportTasks,
  siteImportDefinition,
  siteImportTasks,
} from '../../functions/pipeline/site-transfer.definition.ts';
import { prepareDefinition } from '../../infra/local/sfn-local-definition.ts';

const machines = [
  { name: 'module import', definition: moduleImportDefinition, tasks: moduleImportTasks },
  { name: 'site export', definition: siteExportDefinition, tasks: siteExportTasks },
  { name: 'site import', definition: siteImportDefinition, tasks: siteImportTasks },
];

describe('state machine definitions', () => {
  it.each(machines)('$name passes the local runner’s checks', ({ definition, tasks }) => {
    const taskHandlers = Object.fromEntries(tasks.map((task) => [task.substitution, async () => ({})]));
    const prepared = prepareDefinition({ definition, substitutions: {}, taskHandlers });
    expect(Object.keys(prepared.taskHandlersByState).length).toBeGreaterThan(0);
    expect(() => new StateMachine(prepared.definition as never)).not.toThrow();
  });

  it('refuses a definition the checks would refuse', () => {
    const broken = { ...moduleImportDefinition, StartAt: 'NoSuchState' };
    expect(() => new StateMachine(broken as never)).toThrow();
  });
});
