import { describe, expect, it } from 'vitest';
import { longLines, MAX_LINE_LENGTH } from '../../infra/checks/line-length.ts';

const long = 'x'.repeat(MAX_LINE_LENGTH);

function found(line: string): string[] {
  return longLines(['file.ts'], () => `const a = 1;\n${line}\n`);
}

describe('line-length check', () => {
  it('reports a line over the limit with its file and line number', () => {
    expect(found(`const text = '${long}';`)).toEqual([`file.ts:2: ${MAX_LINE_LENGTH + 16} characters`]);
  });

  it("lets a test's title line run long: one title literal and the callback's opening, nothing else", () => {
    expect(found(`  it('${long}', async () => {`)).toEqual([]);
    expect(found(`describe("${long}", () => {`)).toEqual([]);
    expect(found(`  it.skip('${long} isn\\'t', async () => {`)).toEqual([]);
  });

  it('still reports a title split into pieces, or a title line carrying more code', () => {
    expect(found(`  it('${long}' + 'more', async () => {`)).toHaveLength(1);
    expect(found(`  it('${long}', async () => { await go(); });`)).toHaveLength(1);
    expect(found(`  it(\`${long}\`, async () => {`)).toHaveLength(1);
  });
});
