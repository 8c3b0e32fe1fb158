/**
 * Preloaded into zero-cache and every Node process it starts (NODE_OPTIONS=--require), so that
 * what it serves is reachable from this machine only. zero-cache 1.9 binds its HTTP servers (the
 * sync port and the change-streamer's) on `::`, every interface, and has no setting to change
 * it; here every TCP listen is moved to 127.0.0.1 instead. Unix sockets are left as they are.
 */
'use strict';
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  // listen() and listen(callback) take a random port on every interface: a random port here.
  if (args[0] === undefined || args[0] === null) args[0] = 0;
  else if (typeof args[0] === 'function') args.unshift(0);
  const [first] = args;
  if (typeof first === 'object') {
    // listen({ port, host, ... }); one with a `path` is a unix socket, a `handle` or `fd` one
    // already open, and a server or socket handed over is that (left as they are).
    const opened = first.path !== undefined || first.handle !== undefined || first.fd !== undefined || '_handle' in first;
    if (!opened) args[0] = { ...first, host: LOOPBACK, ipv6Only: false };
  } else if (typeof first === 'number' || /^\d+$/.test(String(first))) {
    // listen(port[, host][, backlog][, callback]): a host, when given, is the second argument.
    if (typeof args[1] === 'string') args[1] = LOOPBACK;
    else args.splice(1, 0, LOOPBACK);
  }
  return listen.apply(this, args);
};
