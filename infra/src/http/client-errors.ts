import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests that Node's HTTP parser refuses before any app code runs (a request line and headers
 * over its 16 KB limit, a malformed request line, a header timeout) get our error body too,
 * `{ error, code }` with nosniff, instead of Node's bare status line.
 */
export function answerClientErrors<S extends Server>(server: S): S {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, body] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', { error: 'The address and headers of the request are too large (at most 16 KB).', code: 'headers_too_large' }]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', { error: 'The request took too long to arrive.', code: 'request_timeout' }]
          : [400, 'Bad Request', { error: 'The request could not be read.', code: 'bad_request' }];
    const json = JSON.stringify(body);
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`);
  });
  return server;
}
