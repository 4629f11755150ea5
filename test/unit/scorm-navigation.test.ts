/**
 * The navigation a SCORM launch offers (decision 325): flow, forwardOnly, choice and choiceExit
 * control modes of a 2004 manifest (SN SB.2.1, SB.2.3, SB.2.7-SB.2.9), and 1.2's free order.
 */
import { describe, expect, it } from 'vitest';
import { parseScormManifest } from '../../shared/domain/scorm-manifest.ts';
import { scormNavigation } from '../../shared/domain/scorm-navigation.ts';

const mode = (attributes: string) => `<imsss:sequencing><imsss:controlMode ${attributes}/></imsss:sequencing>`;
const sco = (id: string) => `<item identifier="${id}" identifierref="R-${id}"><title>${id}</title></item>`;

function structure(body: string, organization: string, edition = '2004 4th Edition') {
  const ids = [...body.matchAll(/identifierref="([^"]+)"/g)].map((match) => match[1]!);
  const namespace =
    edition === '1.2' ? 'http://www.adlnet.org/xsd/adlcp_rootv1p2' : 'http://www.adlnet.org/xsd/adlcp_v1p3';
  const type = edition === '1.2' ? 'adlcp:scormtype' : 'adlcp:scormType';
  return parseScormManifest(`<?xml version="1.0"?>
<manifest identifier="m" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="${namespace}"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>${edition}</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>T</title>${body}${organization}
  </organization></organizations>
  <resources>${ids
    .map((id) => `<resource identifier="${id}" type="webcontent" ${type}="sco" href="${id}.html"/>`)
    .join('')}</resources>
</manifest>`).scorm!;
}

describe('SCORM navigation (SN control modes)', () => {
  // root (flow) > [a, unit (flow, forwardOnly) > [b, c], d]
  const unit = (attributes: string) =>
    `<item identifier="unit"><title>Unit</title>${sco('b')}${sco('c')}${mode(attributes)}</item>`;
  const flowing = structure(sco('a') + unit('flow="true" forwardOnly="true"') + sco('d'), mode('flow="true"'));

  it.each([
    ['a', { next: 'b', previous: null, end: false }],
    ['b', { next: 'c', previous: null, end: false }], // forwardOnly unit: no previous out of it
    ['c', { next: 'd', previous: null, end: false }],
    ['d', { next: null, previous: 'b', end: true }], // backward into a forwardOnly cluster: its first child
  ] as const)('flow from %s', (current, expected) => {
    expect(scormNavigation(flowing, current)).toMatchObject(expected);
  });

  it('without flow (the default) there is no continue or previous; choice stays', () => {
    const free = structure(sco('a') + sco('b'), '');
    expect(scormNavigation(free, 'a')).toEqual({ next: null, end: false, previous: null, choosable: ['a', 'b'] });
    // Flow at the root, but not in the unit: continue cannot enter it.
    const closed = structure(sco('a') + unit('choice="true"'), mode('flow="true"'));
    expect(scormNavigation(closed, 'a')).toMatchObject({ next: null, end: false });
  });

  it('choice false hides a subtree from choice; choiceExit false keeps choice inside', () => {
    const noChoice = structure(sco('a') + unit('choice="false" flow="true"'), mode('flow="true"'));
    expect(scormNavigation(noChoice, 'a').choosable).toEqual(['a']);
    const fenced = structure(sco('a') + unit('choiceExit="false"'), '');
    expect(scormNavigation(fenced, 'b').choosable).toEqual(['b', 'c']);
    expect(scormNavigation(fenced, 'a').choosable).toEqual(['a', 'b', 'c']);
  });

  it('1.2 has no sequencing: the organization order, every SCO chosen', () => {
    const old = structure(sco('a') + sco('b'), '', '1.2');
    expect(scormNavigation(old, 'a')).toEqual({ next: 'b', end: false, previous: null, choosable: ['a', 'b'] });
    expect(scormNavigation(old, 'b')).toMatchObject({ next: null, end: true, previous: 'a' });
  });
});
