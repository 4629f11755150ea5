/** Every alarm in the app has the same shape: any breach in one period notifies the alarm topic. */
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

export interface AlarmProps {
  metric: IMetric;
  /** Alarm when the metric reaches this value within one period. */
  threshold: number;
  description: string;
  topic: ITopic;
}

export function addAlarm(scope: Construct, id: string, props: AlarmProps): Alarm {
  const alarm = new Alarm(scope, id, {
    metric: props.metric,
    threshold: props.threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    // No traffic is not a failure: a quiet site must not sit in INSUFFICIENT_DATA or ALARM.
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: props.description,
  });
  const action = new SnsAction(props.topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}
