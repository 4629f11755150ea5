/**
 * Real module packages built in the test: SCORM 1.2 and 2004, cmi5, a corrupt zip, one zipped
 * a folder too deep, a zip bomb, and a large one for the benchmark. Built with yazl, so they
 * are ordinary zip files any LMS would read.
 */
import { randomBytes } from 'node:crypto';
import yazl from 'yazl';

export type PackageFiles = Record<string, string | Buffer>;

export function zip(files: PackageFiles, options: { compress?: boolean } = {}): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) {
    archive.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name, {
      compress: options.compress ?? true,
    });
  }
  archive.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.once('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.once('error', reject);
  });
}

export function scorm12Manifest(title: string, launch = 'index.html'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.${title.replace(/\W/g, '')}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="org1">
    <organization identifier="org1">
      <title>${title}</title>
      <item identifier="item1" identifierref="res1"><title>Lesson 1</title></item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="res1" type="webcontent" adlcp:scormtype="sco" href="${launch}">
      <file href="${launch}"/>
    </resource>
  </resources>
</manifest>`;
}

export function scorm2004Manifest(title: string, launch = 'content/start.html'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.2004" version="1"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG">
    <organization identifier="ORG">
      <title>${title}</title>
      <item identifier="module"><title>Module</title>
        <item identifier="sco1" identifierref="RES-1" parameters="?lesson=1"><title>Part 1</title></item>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="RES-1" type="webcontent" adlcp:scormType="sco" href="${launch}">
      <file href="${launch}"/>
    </resource>
  </resources>
</manifest>`;
}

export function cmi5Xml(title: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://example.com/courses/safety">
    <title><langstring lang="en-US">${title}</langstring></title>
    <description><langstring lang="en-US">Safety basics</langstring></description>
  </course>
  <au id="https://example.com/courses/safety/au1" moveOn="Completed">
    <title><langstring lang="en-US">Unit 1</langstring></title>
    <url>au1/index.html</url>
  </au>
</courseStructure>`;
}

export function tincanXml(title: string): string {
  return `<?xml version="1.0" encoding="utf-8" ?>
<tincan xmlns="http://projecttincan.com/tincan.xsd">
  <activities>
    <activity id="http://example.com/tincan/course" type="http://adlnet.gov/expapi/activities/course">
      <name>${title}</name>
      <launch lang="en-us">story.html</launch>
    </activity>
  </activities>
</tincan>`;
}

const page = (title: string) =>
  `<!doctype html><html><head><title>${title}</title><link rel="stylesheet" ` +
  `href="style.css"></head><body>${title}</body></html>`;

export function scorm12Package(title = 'Lockout Tagout'): Promise<Buffer> {
  return zip({
    'imsmanifest.xml': scorm12Manifest(title),
    'index.html': page(title),
    'style.css': 'body{font:14px sans-serif}',
    'img/logo.png': randomBytes(512),
  });
}

export function scorm2004Package(title = 'Forklift Operation'): Promise<Buffer> {
  return zip({
    'imsmanifest.xml': scorm2004Manifest(title),
    'content/start.html': page(title),
    'content/app.js': 'console.log(1)',
  });
}

export function cmi5Package(title = 'Safety Basics'): Promise<Buffer> {
  return zip({ 'cmi5.xml': cmi5Xml(title), 'au1/index.html': page(title) });
}

/** Every file inside one folder: the manifest is one level too deep. */
export function tooDeepPackage(title = 'Nested Export'): Promise<Buffer> {
  return zip({
    'Nested Export/imsmanifest.xml': scorm12Manifest(title),
    'Nested Export/index.html': page(title),
    'Nested Export/style.css': 'p{}',
    '__MACOSX/Nested Export/._index.html': 'mac clutter',
  });
}

/** A valid zip whose one entry inflates a thousand times over. */
export function zipBombPackage(): Promise<Buffer> {
  return zip({
    'imsmanifest.xml': scorm12Manifest('Bomb'),
    'index.html': page('Bomb'),
    'padding.bin': Buffer.alloc(32 * 1024 * 1024),
  });
}

/** Starts like a zip, then is garbage. */
export async function corruptPackage(): Promise<Buffer> {
  const good = await scorm12Package('Corrupt');
  return Buffer.concat([good.subarray(0, 40), randomBytes(200)]);
}

/** About `megabytes` MB of incompressible content in 1 MB files plus a SCORM 1.2 manifest. */
export function largePackage(megabytes: number): Promise<Buffer> {
  const files: PackageFiles = {
    'imsmanifest.xml': scorm12Manifest('Large Module'),
    'index.html': page('Large Module'),
  };
  for (let i = 0; i < megabytes; i++) files[`media/chunk-${String(i).padStart(3, '0')}.bin`] = randomBytes(1024 * 1024);
  return zip(files, { compress: false });
}

/** A sound central directory, but the last entry's compressed data is garbage: fails while extracting. */
export async function corruptEntryPackage(): Promise<Buffer> {
  const words = Array.from({ length: 40_000 }, (_, i) => `word${(i * 7919) % 1013}`).join(' ');
  const good = await zip({
    'imsmanifest.xml': scorm12Manifest('Corrupt Entry'),
    'index.html': page('Corrupt Entry'),
    'notes.txt': words,
  });
  const centralDirectory = good.readUInt32LE(good.length - 22 + 16);
  const broken = Buffer.from(good);
  broken.fill(0xff, centralDirectory - 2000, centralDirectory - 1000);
  return broken;
}
