/**
 * SCORM packages the tests build themselves, for what a player needs of the manifest: SCORM 1.2
 * with several SCOs and the adlcp values, 2004 3rd edition (completionThreshold as a value) and
 * 4th edition (sequencing, objectives, a sequencing collection), and broken ones.
 */
import { type PackageFiles, zip } from './module-packages.ts';

const page = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body>${title}</body></html>`;

export function scorm12MultiManifest(title: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.multi12" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="golf">
    <organization identifier="golf">
      <title>${title}</title>
      <item identifier="intro" identifierref="res-intro">
        <title>Introduction</title>
        <adlcp:masteryscore>80</adlcp:masteryscore>
        <adlcp:maxtimeallowed>00:30:00</adlcp:maxtimeallowed>
        <adlcp:timelimitaction>exit,message</adlcp:timelimitaction>
        <adlcp:datafromlms>level=beginner</adlcp:datafromlms>
      </item>
      <item identifier="part2"><title>Playing</title>
        <item identifier="rules" identifierref="res-rules" parameters="chapter=2"><title>Rules</title></item>
        <item identifier="quiz" identifierref="res-quiz" isvisible="false"><title>Quiz</title></item>
      </item>
    </organization>
  </organizations>
  <resources xml:base="sco/">
    <resource identifier="res-intro" type="webcontent" adlcp:scormtype="sco" href="intro.html"/>
    <resource identifier="res-rules" type="webcontent" adlcp:scormtype="sco" href="rules.html?x=1"/>
    <resource identifier="res-quiz" type="webcontent" adlcp:scormtype="asset" href="quiz.html"/>
  </resources>
</manifest>`;
}

export function scorm12MultiPackage(title = 'Golf Explained', overrides: PackageFiles = {}): Promise<Buffer> {
  return zip({
    'imsmanifest.xml': scorm12MultiManifest(title),
    'sco/intro.html': page('Introduction'),
    'sco/rules.html': page('Rules'),
    'sco/quiz.html': page('Quiz'),
    ...overrides,
  });
}

export function scorm2004Third(title: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.third" version="1"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
  <organizations default="ORG">
    <organization identifier="ORG">
      <title>${title}</title>
      <item identifier="only" identifierref="RES">
        <title>Only</title>
        <adlcp:completionThreshold>0.75</adlcp:completionThreshold>
        <adlcp:dataFromLMS>mode=third</adlcp:dataFromLMS>
        <adlcp:timeLimitAction>continue,message</adlcp:timeLimitAction>
        <imsss:sequencing>
          <imsss:limitConditions attemptAbsoluteDurationLimit="PT1H"/>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="pass" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
        </imsss:sequencing>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="RES" type="webcontent" adlcp:scormType="sco" href="index.html"/>
  </resources>
</manifest>`;
}

export function scorm2004ThirdPackage(title = 'Third Edition'): Promise<Buffer> {
  return zip({ 'imsmanifest.xml': scorm2004Third(title), 'index.html': page(title) });
}

export function scorm2004Fourth(title: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.fourth" version="1"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG">
    <organization identifier="ORG" adlseq:objectivesGlobalToSystem="false">
      <title>${title}</title>
      <item identifier="lesson1" identifierref="RES1">
        <title>Lesson 1</title>
        <adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="0.8" progressWeight="2"/>
        <imsss:sequencing IDRef="common">
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="lesson1.done" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>0.7</imsss:minNormalizedMeasure>
              <imsss:mapInfo targetObjectiveID="g.lesson1" writeSatisfiedStatus="true"/>
            </imsss:primaryObjective>
            <imsss:objective objectiveID="extra"/>
          </imsss:objectives>
        </imsss:sequencing>
      </item>
      <item identifier="lesson2" identifierref="RES2">
        <title>Lesson 2</title>
        <imsss:sequencing>
          <imsss:sequencingRules>
            <imsss:preConditionRule>
              <imsss:ruleConditions conditionCombination="any">
                <imsss:ruleCondition referencedObjective="prior" condition="satisfied" operator="not"/>
              </imsss:ruleConditions>
              <imsss:ruleAction action="disabled"/>
            </imsss:preConditionRule>
          </imsss:sequencingRules>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="lesson2.done"/>
            <imsss:objective objectiveID="prior">
              <imsss:mapInfo targetObjectiveID="g.lesson1"/>
            </imsss:objective>
          </imsss:objectives>
        </imsss:sequencing>
      </item>
      <imsss:sequencing>
        <imsss:controlMode choice="true" flow="true" choiceExit="false"/>
        <imsss:rollupRules objectiveMeasureWeight="0.5">
          <imsss:rollupRule childActivitySet="atLeastCount" minimumCount="1">
            <imsss:rollupConditions><imsss:rollupCondition condition="satisfied"/></imsss:rollupConditions>
            <imsss:rollupAction action="satisfied"/>
          </imsss:rollupRule>
        </imsss:rollupRules>
      </imsss:sequencing>
    </organization>
  </organizations>
  <resources>
    <resource identifier="RES1" type="webcontent" adlcp:scormType="sco" href="l1.html"/>
    <resource identifier="RES2" type="webcontent" adlcp:scormType="sco" href="l2.html"/>
  </resources>
  <imsss:sequencingCollection>
    <imsss:sequencing ID="common">
      <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>
      <imsss:limitConditions attemptLimit="3"/>
    </imsss:sequencing>
  </imsss:sequencingCollection>
</manifest>`;
}

export function scorm2004FourthPackage(title = 'Fourth Edition'): Promise<Buffer> {
  return zip({ 'imsmanifest.xml': scorm2004Fourth(title), 'l1.html': page('Lesson 1'), 'l2.html': page('Lesson 2') });
}

/**
 * A 2004 4th edition manifest around `body` (the organization's items, sequencing included): the
 * root flows and allows choice, and each `identifierref="R-<id>"` gets a SCO resource `<id>.html`.
 */
export function sequenced2004Manifest(title: string, body: string): string {
  const ids = [...body.matchAll(/identifierref="R-([^"]+)"/g)].map((match) => match[1]!);
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.sequenced" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>${title}</title>${body}
    <imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing>
  </organization></organizations>
  <resources>${ids
    .map((id) => `<resource identifier="R-${id}" type="webcontent" adlcp:scormType="sco" href="${id}.html"/>`)
    .join('')}</resources>
</manifest>`;
}
