/**
 * TransactWriteItems with named conditions: when a condition fails, the error says which
 * named item failed, so a service can answer "email taken" rather than "transaction failed".
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from './client.ts';
import type { Item, Key } from './items.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A write in a transaction, with a label used to report which condition failed. */
export interface LabelledWrite {
  label: string;
  item: TransactItem;
  /**
   * The error to answer when this write's condition fails, instead of TransactionConditionFailed:
   * a proof the transaction spends (a step-up, decision 251) refuses the request however the
   * route reads its own conditions. Checked first, in the order of the writes.
   */
  refusal?: () => Error;
}

/**
 * The write that creates `item` (which carries its keys) in a transaction, failing under `label`
 * when an item with that key exists already: a first write, a marker, a claim.
 */
export function createItemWrite(label: string, item: Item & Key): LabelledWrite {
  return {
    label,
    item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
  };
}

export class TransactionConditionFailed extends Error {
  constructor(
    readonly failedLabels: string[],
    /** The old item of each failed write, when ReturnValuesOnConditionCheckFailure was set. */
    readonly oldItems: Record<string, Record<string, unknown> | undefined>,
  ) {
    super(`Condition failed: ${failedLabels.join(', ')}`);
    this.name = 'TransactionConditionFailed';
  }
}

export async function transactWrite(writes: LabelledWrite[]): Promise<void> {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: writes.map((write) => write.item) }));
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons) {
      const failed: string[] = [];
      const oldItems: Record<string, Record<string, unknown> | undefined> = {};
      error.CancellationReasons.forEach((reason, index) => {
        if (reason.Code === 'ConditionalCheckFailed') {
          failed.push(writes[index].label);
          // Exceptions carry raw AttributeValues; the document client does not convert them.
          oldItems[writes[index].label] = reason.Item ? unmarshall(reason.Item) : undefined;
        }
      });
      const refused = writes.find((write) => write.refusal && failed.includes(write.label));
      if (refused?.refusal) throw refused.refusal();
      if (failed.length > 0) throw new TransactionConditionFailed(failed, oldItems);
    }
    throw error;
  }
}
