/**
 * Turns the ASL object the CDK deploys into something aws-local-stepfunctions can run here:
 * `${Name}` placeholders substituted (task functions get fake Lambda ARNs), and one local
 * handler per Task state. The library keys its overrides by STATE NAME, not by ARN, so the
 * definition is walked (Map and Parallel bodies included) to find which function each Task
 * calls.
 */

/** What a pipeline Lambda handler looks like to the runner. */
export type TaskHandler = (input: any) => Promise<any>;

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type LocalTaskOverride = (input: JsonValue) => Promise<JsonValue>;

export interface PreparedDefinition {
  /** The definition with every placeholder replaced. */
  definition: Record<string, unknown>;
  /** `taskResourceLocalHandlers` for aws-local-stepfunctions, keyed by state name. */
  taskHandlersByState: Record<string, LocalTaskOverride>;
}

const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';
const LAMBDA_ARN = /^arn:aws[\w-]*:lambda:[\w-]+:\d{12}:function:([\w-]+)(?::[\w$-]+)?$/;
const PLACEHOLDER = /\$\{([^}]+)\}/g;

/** The stand-in ARN a task function gets locally; its function name is the placeholder name. */
export function fakeLambdaArn(substitution: string, region = 'us-east-1'): string {
  return `arn:aws:lambda:${region}:000000000000:function:${substitution}`;
}

/**
 * @param taskHandlers keyed by substitution name (e.g. InspectPackageFunctionArn); each one
 *   gets a fake Lambda ARN unless `substitutions` names a value for it.
 */
export function prepareDefinition(input: {
  definition: object;
  substitutions: Record<string, string>;
  taskHandlers: Record<string, TaskHandler>;
  region?: string;
}): PreparedDefinition {
  const values: Record<string, string> = {};
  for (const name of Object.keys(input.taskHandlers)) values[name] = fakeLambdaArn(name, input.region);
  Object.assign(values, input.substitutions);

  const handlersByFunction = new Map<string, TaskHandler>();
  for (const [name, handler] of Object.entries(input.taskHandlers)) {
    const functionName = lambdaFunctionName(values[name]!);
    if (!functionName) throw new Error(`Substitution ${name} must be a Lambda function ARN, got ${values[name]}`);
    handlersByFunction.set(functionName, handler);
  }

  const definition = substitute(input.definition, values) as Record<string, unknown>;
  const taskHandlersByState: Record<string, LocalTaskOverride> = {};
  for (const [stateName, state] of allStates(definition)) {
    if (state.Type !== 'Task') continue;
    taskHandlersByState[stateName] = localTaskOverride(stateName, state, handlersByFunction);
  }
  return { definition, taskHandlersByState };
}

/** Replaces `${Name}` in every string (CDK definitionSubstitutions work on the whole text). */
function substitute(value: unknown, values: Record<string, string>): unknown {
  const missing = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return node.replace(PLACEHOLDER, (text, name: string) => {
        if (values[name] === undefined) missing.add(name);
        return values[name] ?? text;
      });
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [walk(key) as string, walk(child)]));
    }
    return node;
  };
  const result = walk(value);
  if (missing.size > 0) throw new Error(`Definition placeholders without a value: ${[...missing].join(', ')}`);
  return result;
}

type State = Record<string, any>;

/** Every state by name, including those inside Map and Parallel bodies. */
function allStates(machine: Record<string, any>): Array<[string, State]> {
  const found: Array<[string, State]> = [];
  const seen = new Set<string>();
  const visit = (body: Record<string, any>) => {
    for (const [name, state] of Object.entries<State>(body.States ?? {})) {
      // The ASL spec makes names unique machine-wide, which is what lets overrides key on them.
      if (seen.has(name)) throw new Error(`State name ${name} is used twice`);
      seen.add(name);
      found.push([name, state]);
      if (state.Type === 'Map') visit(state.ItemProcessor ?? state.Iterator ?? {});
      if (state.Type === 'Parallel') for (const branch of state.Branches ?? []) visit(branch);
    }
  };
  visit(machine);
  return found;
}

function localTaskOverride(
  stateName: string,
  state: State,
  handlersByFunction: Map<string, TaskHandler>,
): LocalTaskOverride {
  const handlerFor = (functionRef: unknown) => {
    const name = typeof functionRef === 'string' ? lambdaFunctionName(functionRef) : undefined;
    const handler = name ? handlersByFunction.get(name) : undefined;
    if (!handler) throw new Error(`Task state ${stateName}: no local handler for function ${String(functionRef)}`);
    return handler;
  };

  if (state.Resource === LAMBDA_INVOKE) {
    // Optimized integration: the state passes { FunctionName, Payload } and gets the
    // Invoke response back, which is why definitions select `$.Payload`.
    if (typeof state.Parameters?.FunctionName !== 'string') {
      throw new Error(`Task state ${stateName}: lambda:invoke needs a literal Parameters.FunctionName`);
    }
    const handler = handlerFor(state.Parameters.FunctionName);
    return async (parameters) => {
      const payload = (parameters as { Payload?: JsonValue } | null)?.Payload ?? {};
      const result = await invokeLikeLambda(handler, payload);
      return { ExecutedVersion: '$LATEST', Payload: result, StatusCode: 200 };
    };
  }
  if (typeof state.Resource === 'string' && LAMBDA_ARN.test(state.Resource)) {
    const handler = handlerFor(state.Resource);
    return (input) => invokeLikeLambda(handler, input);
  }
  throw new Error(`Task state ${stateName}: resource ${state.Resource} has no local implementation`);
}

function lambdaFunctionName(ref: string): string | undefined {
  return LAMBDA_ARN.exec(ref)?.[1];
}

/**
 * Calls a handler the way Lambda would: JSON in, JSON out, and a thrown error becomes a
 * function error whose name is the errorType and whose message is Lambda's JSON error
 * document, so Error and Cause read as they do in AWS.
 */
async function invokeLikeLambda(handler: TaskHandler, event: JsonValue): Promise<JsonValue> {
  let result: unknown;
  try {
    result = await handler(structuredClone(event));
  } catch (thrown) {
    throw lambdaFunctionError(thrown);
  }
  return result === undefined ? null : (JSON.parse(JSON.stringify(result)) as JsonValue);
}

function lambdaFunctionError(thrown: unknown): Error {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  const document = {
    errorType: error.name,
    errorMessage: error.message,
    trace: handlerFrames(error.stack),
  };
  const failure = new Error(JSON.stringify(document));
  failure.name = error.name;
  return failure;
}

/** The stack as Lambda reports it: the handler's frames, not this runner's or the library's. */
function handlerFrames(stack: string | undefined): string[] {
  const lines = (stack ?? '').split('\n');
  const runnerFrame = lines.findIndex((line) => line.includes('invokeLikeLambda'));
  return runnerFrame === -1 ? lines : lines.slice(0, runnerFrame);
}
