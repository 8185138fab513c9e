// A minimal MQTT 3.1.1 client over WebSockets for the mjtable display (no dependencies, no CDN).
// Supports CONNECT (username/password, keepalive, clean session), SUBSCRIBE, PUBLISH QoS 0/1 both ways,
// PUBACK, PINGREQ.  Usage:
//   const c = new MqttWs("ws://127.0.0.1:9001", {clientId, username, password, keepaliveS: 20});
//   c.onconnect = () => c.subscribe(["mjtable/v1/table/T1/#"]);
//   c.onmessage = (topic, text) => ...;  c.onclose = (reason) => ...;  c.connect();
"use strict";

class MqttWs {
  constructor(url, opts) {
    this.url = url;
    this.opts = Object.assign({clientId: "mjt-" + Math.random().toString(16).slice(2, 10), keepaliveS: 20}, opts || {});
    this.ws = null;
    this.buf = new Uint8Array(0);
    this.nextId = 1;
    this.connected = false;
    this.onconnect = () => {};
    this.onmessage = () => {};
    this.onclose = () => {};
    this.onerror = () => {};
    this.onsuback = () => {};
    this._ping = null;
    this._enc = new TextEncoder();
    this._dec = new TextDecoder();
  }

  connect() {
    this.ws = new WebSocket(this.url, ["mqtt"]);
    this.ws.binaryType = "arraybuffer";
    this.ws.onopen = () => this._send(this._connectPacket());
    this.ws.onmessage = (ev) => this._feed(new Uint8Array(ev.data));
    this.ws.onclose = () => this._closed("connection closed");
    this.ws.onerror = () => this.onerror("websocket error");
  }

  close() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this._send(new Uint8Array([0xe0, 0x00]));
    if (this.ws) this.ws.close();
  }

  subscribe(filters, qos) {
    const q = qos === undefined ? 1 : qos;
    const parts = [this._u16(this._id())];
    for (const f of filters) { parts.push(this._str(f)); parts.push(new Uint8Array([q])); }
    this._send(this._packet(0x82, this._concat(parts)));
  }

  publish(topic, text, qos, retain) {
    const q = qos || 0;
    const parts = [this._str(topic)];
    if (q > 0) parts.push(this._u16(this._id()));
    parts.push(this._enc.encode(text));
    this._send(this._packet(0x30 | (q << 1) | (retain ? 1 : 0), this._concat(parts)));
  }

  // -- encoding ----------------------------------------------------------------------------------------
  _id() { const id = this.nextId; this.nextId = this.nextId % 65535 + 1; return id; }
  _u16(n) { return new Uint8Array([(n >> 8) & 0xff, n & 0xff]); }
  _str(s) { const b = this._enc.encode(s); return this._concat([this._u16(b.length), b]); }
  _concat(arrs) {
    let n = 0; for (const a of arrs) n += a.length;
    const out = new Uint8Array(n); let i = 0;
    for (const a of arrs) { out.set(a, i); i += a.length; }
    return out;
  }
  _packet(header, body) {
    const len = []; let x = body.length;
    do { let d = x % 128; x = Math.floor(x / 128); if (x > 0) d |= 0x80; len.push(d); } while (x > 0);
    return this._concat([new Uint8Array([header]), new Uint8Array(len), body]);
  }
  _connectPacket() {
    const o = this.opts;
    let flags = 0x02; // clean session
    const payload = [this._str(o.clientId)];
    if (o.username) { flags |= 0x80; payload.push(this._str(o.username)); }
    if (o.username && o.password) { flags |= 0x40; payload.push(this._str(o.password)); }
    const vh = this._concat([this._str("MQTT"), new Uint8Array([4, flags]), this._u16(o.keepaliveS)]);
    return this._packet(0x10, this._concat([vh].concat(payload)));
  }
  _send(bytes) { if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(bytes); }

  // -- decoding ----------------------------------------------------------------------------------------
  _feed(chunk) {
    this.buf = this._concat([this.buf, chunk]);
    for (;;) {
      if (this.buf.length < 2) return;
      let mult = 1, len = 0, i = 1, b;
      do {
        if (i >= this.buf.length) return;
        b = this.buf[i++]; len += (b & 0x7f) * mult; mult *= 128;
        if (i > 5) { this._closed("malformed remaining length"); return; }
      } while (b & 0x80);
      if (this.buf.length < i + len) return;
      const header = this.buf[0];
      const body = this.buf.slice(i, i + len);
      this.buf = this.buf.slice(i + len);
      this._handle(header, body);
    }
  }
  _handle(header, body) {
    const type = header >> 4;
    if (type === 2) { // CONNACK
      const rc = body[1];
      if (rc !== 0) {
        const why = {1: "bad protocol", 2: "client id rejected", 3: "server unavailable",
                     4: "bad username or password", 5: "not authorized"}[rc] || ("refused " + rc);
        this.onerror(why); this.ws.close(); return;
      }
      this.connected = true;
      this._ping = setInterval(() => this._send(new Uint8Array([0xc0, 0x00])), this.opts.keepaliveS * 500);
      this.onconnect();
    } else if (type === 3) { // PUBLISH
      const qos = (header >> 1) & 3;
      const tlen = (body[0] << 8) | body[1];
      const topic = this._dec.decode(body.slice(2, 2 + tlen));
      let p = 2 + tlen;
      if (qos > 0) {
        const id = (body[p] << 8) | body[p + 1]; p += 2;
        this._send(new Uint8Array([qos === 1 ? 0x40 : 0x50, 0x02, body[p - 2], body[p - 1]]));
        void id;
      }
      const text = this._dec.decode(body.slice(p));
      try { this.onmessage(topic, text, (header & 1) === 1); } catch (e) { console.error(e); }
    } else if (type === 9) { // SUBACK
      this.onsuback(Array.from(body.slice(2)));
    } else if (type === 5) { // PUBREC (QoS 2 is never requested; answer to stay compliant)
      this._send(new Uint8Array([0x62, 0x02, body[0], body[1]]));
    }
  }
  _closed(reason) {
    if (this._ping) { clearInterval(this._ping); this._ping = null; }
    const was = this.connected; this.connected = false;
    this.onclose(reason, was);
  }
}

if (typeof window !== "undefined") window.MqttWs = MqttWs;
