"use strict";
// Podium's viewer: plays the presenter's screen from one WebSocket. With WebCodecs (HTTPS or
// localhost) each frame is decoded as it comes and the newest one painted at each display
// refresh; without it (plain HTTP over the LAN), Media Source Extensions play fMP4 fragments,
// kept at the live edge. Once a second the page tells the server how it keeps up.

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const fixedRendition = params.get("rendition");
const decoderKind = typeof VideoDecoder === "function" && params.get("decoder") !== "mse" ? "webcodecs" : "mse";
const canvas = document.getElementById("picture");
const video = document.getElementById("video");
const statusLine = document.getElementById("status");
const statsBox = document.getElementById("stats");
const context = canvas.getContext("2d", { alpha: false, desynchronized: true });

// What tests and the stats overlay read.
const podium = window.podium = {
  state: "connecting", decoder: decoderKind, rendition: null, width: 0, height: 0,
  painted: 0, decoded: 0, dropped: 0, latency: null, firstFrameAfter: null, connections: 0,
};

let socket = null;
let reconnectDelay = 500;
let paused = false;
// The server's monotonic clock minus the page's, in milliseconds, from the quickest ping.
let clockOffset = null;
let roundTrips = [];
// Per second, for the report: latencies (capture to paint) and decode times, in milliseconds.
let latencies = [];
let decodeTimes = [];
let deepestQueue = 0;
let connectedAt = 0;

function showStatus(text) {
  statusLine.textContent = text;
  statusLine.hidden = !text;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function pictureSize() {
  return { width: Math.round(innerWidth * devicePixelRatio), height: Math.round(innerHeight * devicePixelRatio) };
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/stream?${new URLSearchParams({ token })}`);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => {
    podium.connections += 1;
    connectedAt = performance.now();
    podium.firstFrameAfter = null;
    reconnectDelay = 500;
    send({ type: "hello", decoder: decoderKind, rendition: fixedRendition, ...pictureSize() });
    for (let i = 0; i < 5; i++) setTimeout(ping, i * 100);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") onMessage(JSON.parse(event.data));
    else onBinary(event.data);
  };
  socket.onclose = (event) => {
    socket = null;
    teardown();
    podium.state = "reconnecting";
    showStatus(event.reason ? `${event.reason}; reconnecting…` : "The stream is not there; reconnecting…");
    setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 5000);
  };
}

function ping() {
  send({ type: "ping", t: performance.now() });
}

function onMessage(message) {
  switch (message.type) {
  case "welcome":
    paused = message.paused;
    break;
  case "config":
    podium.rendition = message.rendition;
    podium.width = message.width;
    podium.height = message.height;
    if (decoderKind === "webcodecs") configureDecoder(message);
    else configurePlayer(message);
    break;
  case "pong": {
    const now = performance.now();
    roundTrips.push({ roundTrip: now - message.t, offset: message.server - (message.t + now) / 2 });
    if (roundTrips.length > 10) roundTrips.shift();
    clockOffset = roundTrips.reduce((best, next) => next.roundTrip < best.roundTrip ? next : best).offset;
    break;
  }
  case "paused":
    paused = message.paused;
    break;
  }
  showStatus(paused ? "Paused by the presenter" : podium.state === "playing" ? "" : statusLine.textContent);
}

// A frame: kind 1, flags (1: keyframe), six zeros, capture time (server ms) and presentation
// time (µs), both Float64; then the frame. Kind 2: an fMP4 initialization segment after 8 bytes.
function onBinary(buffer) {
  const view = new DataView(buffer);
  const kind = view.getUint8(0);
  if (kind === 2) {
    player?.append(buffer.slice(8), null);
    return;
  }
  if (kind !== 1) return;
  const frame = {
    isKeyframe: (view.getUint8(1) & 1) === 1,
    captured: view.getFloat64(8),
    timestamp: view.getFloat64(16),
  };
  if (decoderKind === "webcodecs") decode(frame, new Uint8Array(buffer, 24));
  else player?.append(buffer.slice(24), frame.captured);
}

function notePlaying() {
  if (podium.firstFrameAfter === null) podium.firstFrameAfter = performance.now() - connectedAt;
  if (podium.state !== "playing") {
    podium.state = "playing";
    showStatus(paused ? "Paused by the presenter" : "");
  }
}

function recordLatency(shownAt, captured) {
  if (clockOffset === null || captured === undefined) return;
  const latency = shownAt + clockOffset - captured;
  latencies.push(Math.round(latency * 10) / 10);
  podium.latency = latency;
}

// Forgets the stream: a new connection starts from its own configuration.
function teardown() {
  if (decoder && decoder.state !== "closed") decoder.close();
  decoder = null;
  newest?.close();
  newest = null;
  if (player) {
    URL.revokeObjectURL(video.src);
    video.removeAttribute("src");
    video.load();
    player = null;
  }
}

// --- WebCodecs: decode at once, paint the newest frame at each display refresh.

let decoder = null;
let newest = null;
const decodeStarted = new Map();
const captureTimes = new Map();

function configureDecoder(config) {
  if (decoder && decoder.state !== "closed") decoder.close();
  decodeStarted.clear();
  captureTimes.clear();
  decoder = new VideoDecoder({
    output: onDecoded,
    error: (error) => showStatus(`Cannot decode: ${error.message}`),
  });
  decoder.configure({
    codec: config.codec, codedWidth: config.width, codedHeight: config.height, optimizeForLatency: true,
  });
  canvas.width = config.width;
  canvas.height = config.height;
  canvas.classList.add("shown");
}

function decode(frame, data) {
  if (!decoder || decoder.state !== "configured") return;
  decodeStarted.set(frame.timestamp, performance.now());
  captureTimes.set(frame.timestamp, frame.captured);
  decoder.decode(new EncodedVideoChunk({
    type: frame.isKeyframe ? "key" : "delta", timestamp: frame.timestamp, data,
  }));
  deepestQueue = Math.max(deepestQueue, decoder.decodeQueueSize);
}

function onDecoded(frame) {
  const started = decodeStarted.get(frame.timestamp);
  decodeStarted.delete(frame.timestamp);
  if (started !== undefined) decodeTimes.push(performance.now() - started);
  podium.decoded += 1;
  if (newest) {
    // A newer frame came before the display refreshed: the older one is never shown.
    captureTimes.delete(newest.timestamp);
    newest.close();
    podium.dropped += 1;
  }
  newest = frame;
}

function paint() {
  requestAnimationFrame(paint);
  if (!newest) return;
  context.drawImage(newest, 0, 0, canvas.width, canvas.height);
  recordLatency(performance.now(), captureTimes.get(newest.timestamp));
  captureTimes.delete(newest.timestamp);
  newest.close();
  newest = null;
  podium.painted += 1;
  notePlaying();
}

// --- Media Source Extensions: fragments appended in sequence, played at the live edge.

let player = null;

function configurePlayer(config) {
  const type = `video/mp4; codecs="${config.codec}"`;
  // One frame's length in the fragments: frames follow each other in sequence, each this long.
  const frameSeconds = Math.round(1e6 / config.fps) / 1e6;
  if (player && player.buffer) {
    player.frameSeconds = frameSeconds;
    player.operations.push(() => player.buffer.changeType(type));
    return;
  }
  if (!MediaSource.isTypeSupported(type)) {
    showStatus(`This browser cannot play ${config.codec}`);
    return;
  }
  const source = new MediaSource();
  player = {
    source, buffer: null, frameSeconds, operations: [], appended: 0, captures: new Map(),
    append(data, captured) {
      const index = captured === null ? null : this.appended++;
      if (index !== null) this.captures.set(index, captured);
      this.operations.push(() => this.buffer.appendBuffer(data));
      this.pump();
    },
    pump() {
      while (this.buffer && !this.buffer.updating && this.operations.length > 0) {
        try {
          this.operations.shift()();
        } catch (error) {
          showStatus(`Cannot play: ${error.message}`);
          this.operations = [];
        }
      }
      this.chase();
    },
    // Stay within a few frames of the newest one: jump when far behind, hurry when a little.
    chase() {
      const ranges = video.buffered;
      if (ranges.length === 0) return;
      const end = ranges.end(ranges.length - 1);
      const behind = end - video.currentTime;
      if (behind > 1 || video.currentTime < ranges.start(ranges.length - 1)) {
        video.currentTime = Math.max(ranges.start(ranges.length - 1), end - this.frameSeconds);
      }
      video.playbackRate = behind > 4 * this.frameSeconds ? 1.5 : 1;
      if (video.paused) video.play().catch(() => {});
    },
  };
  video.src = URL.createObjectURL(source);
  source.addEventListener("sourceopen", () => {
    player.buffer = source.addSourceBuffer(type);
    player.buffer.mode = "sequence";
    player.buffer.addEventListener("updateend", () => player.pump());
    player.pump();
  });
  video.classList.add("shown");
}

function onVideoFrame(now, metadata) {
  video.requestVideoFrameCallback(onVideoFrame);
  if (!player) return;
  const index = Math.round(metadata.mediaTime / player.frameSeconds);
  recordLatency(metadata.expectedDisplayTime, player.captures.get(index));
  for (const key of player.captures.keys()) {
    if (key > index) break;
    player.captures.delete(key);
  }
  podium.painted += 1;
  notePlaying();
}

// --- Reports, stats overlay, fullscreen.

function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

setInterval(() => {
  if (decoderKind === "mse") {
    const quality = video.getVideoPlaybackQuality();
    podium.decoded = quality.totalVideoFrames;
    podium.dropped = quality.droppedVideoFrames;
  }
  const decodeMs = decodeTimes.length ? decodeTimes.reduce((a, b) => a + b) / decodeTimes.length : null;
  send({
    type: "report", decoder: decoderKind, decoded: podium.decoded, dropped: podium.dropped, decodeMs,
    latencies, queue: deepestQueue, ...pictureSize(),
  });
  if (!statsBox.hidden) {
    const latency = median(latencies);
    statsBox.textContent = [
      `${podium.decoder}  ${podium.rendition ?? "-"}  ${podium.width}x${podium.height}`,
      `painted ${latencies.length}/s  decoded ${podium.decoded}  dropped ${podium.dropped}`,
      `latency ${latency === null ? "-" : latency.toFixed(0) + " ms"}` +
        (decodeMs === null ? "" : `  decode ${decodeMs.toFixed(1)} ms`),
    ].join("\n");
  }
  latencies = [];
  decodeTimes = [];
  deepestQueue = 0;
  ping();
}, 1000);

addEventListener("keydown", (event) => {
  if (event.key === "s") statsBox.hidden = !statsBox.hidden;
});
addEventListener("dblclick", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
});

requestAnimationFrame(paint);
if (decoderKind === "mse") video.requestVideoFrameCallback(onVideoFrame);
connect();
