/** A test HTTP server on 127.0.0.1 that serves one module package (imports by URL). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PackageServer {
  /** URL of the package. */
  url: string;
  close(): Promise<void>;
}

export async function servePackage(zip: Buffer): Promise<PackageServer> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length });
    response.end(zip);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/package.zip`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
