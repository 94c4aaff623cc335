"use strict";
// Podium's viewer: plays the presenter's screen, and the run's sound, from one WebSocket. With
// WebCodecs (HTTPS or localhost) each frame is decoded as it comes and painted at a display
// refresh, and the sound is decoded with an AudioDecoder and laid on an AudioContext's timeline;
// without it (plain HTTP over the LAN), Media Source Extensions play fMP4 fragments, kept at the
// live edge. Browsers let sound start only after a click: until then the picture plays muted,
// with a "Click for sound" button. Once a second the page tells the server how it keeps up.

const params = new URLSearchParams(location.search);
// Opened by its link, the page got its tokens as cookies too (which its stream and requests
// carry): out of the address they go, so no screenshot, history entry or Referer holds them.
// `input` stays as a bare flag: this page sends the pointer and keys.
if (params.get("token") || params.get("input")) {
  for (const key of ["token", "input"]) if (params.get(key)) params.set(key, "");
  if (params.has("token")) params.delete("token");
  const query = params.toString().replace(/=(&|$)/g, "$1");
  history.replaceState(null, "", location.pathname + (query ? `?${query}` : "") + location.hash);
}
const fixedRendition = params.get("rendition");
const decoderKind = typeof VideoDecoder === "function" && params.get("decoder") !== "mse" ? "webcodecs" : "mse";
const canvas = document.getElementById("picture");
const video = document.getElementById("video");
const statusLine = document.getElementById("status");
const statsBox = document.getElementById("stats");
const soundButton = document.getElementById("sound");
const notice = document.getElementById("notice");

// Over https, the link says which certificate the presenter's Podium has (`#cert=`, the SHA-256
// of its own, which no server sees): shown for 20 s, to compare with the one the browser shows.
const certificate = /^#cert=([0-9A-Fa-f]{64})$/.exec(location.hash);
if (certificate) {
  const shown = document.getElementById("certificate");
  shown.textContent = "Certificate SHA-256 " + certificate[1].toUpperCase().match(/../g).join(":")
    + " (your browser's should be the same)";
  shown.hidden = false;
  setTimeout(() => { shown.hidden = true; }, 20000);
}
const context = canvas.getContext("2d", { alpha: false, desynchronized: true });

// What tests and the stats overlay read.
const podium = window.podium = {
  state: "connecting", decoder: decoderKind, rendition: null, width: 0, height: 0,
  painted: 0, decoded: 0, dropped: 0, latency: null, firstFrameAfter: null, connections: 0,
  // The sound: "none" in a run without it, "unsupported" when this browser cannot play its codec,
  // "suspended" until a click lets it play, then "running".
  audioState: "none", audioCodec: null, audioDecoded: 0, audioSkipped: 0, audioLatency: null,
  audioLevel: 0, audioPeak: 0, audioBuffered: 0,
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
// The sound codecs this browser plays in this page's way, which the hello names: the server sends
// the sound only in one of them.
let playableSound = [];

function showStatus(text) {
  statusLine.textContent = text;
  statusLine.hidden = !text;
}

function showNotice(text) {
  notice.textContent = text;
  notice.hidden = !text;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function pictureSize() {
  return { width: Math.round(innerWidth * devicePixelRatio), height: Math.round(innerHeight * devicePixelRatio) };
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/stream`);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => {
    podium.connections += 1;
    connectedAt = performance.now();
    podium.firstFrameAfter = null;
    reconnectDelay = 500;
    send({
      type: "hello", decoder: decoderKind, rendition: fixedRendition, sound: playableSound, ...pictureSize(),
    });
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
    configureSound(message.audio);
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
// time (µs), both Float64; then the frame. Kind 3, a sound packet, has the same header. Kinds 2
// and 4: the picture's and the sound's fMP4 initialization segments, after 8 bytes.
function onBinary(buffer) {
  const view = new DataView(buffer);
  const kind = view.getUint8(0);
  if (kind === 2 || kind === 4) {
    player?.initialize(kind === 4 ? "sound" : "picture", buffer.slice(8));
    return;
  }
  if (kind !== 1 && kind !== 3) return;
  const frame = {
    isKeyframe: (view.getUint8(1) & 1) === 1,
    captured: view.getFloat64(8),
    timestamp: view.getFloat64(16),
  };
  if (kind === 3) {
    if (decoderKind === "webcodecs") decodeSound(frame, new Uint8Array(buffer, 24));
    else player?.appendSound(buffer.slice(24), frame);
  } else if (decoderKind === "webcodecs") {
    decode(frame, new Uint8Array(buffer, 24));
  } else {
    player?.append(buffer.slice(24), frame);
  }
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

// Forgets the stream: a new connection starts from its own configuration. The AudioContext
// stays, and with it the click that let it play.
function teardown() {
  if (decoder && decoder.state !== "closed") decoder.close();
  decoder = null;
  for (const frame of held) frame.close();
  held.length = 0;
  closeSoundDecoder();
  sound.config = null;
  restartSoundTimeline();
  if (player) {
    URL.revokeObjectURL(video.src);
    video.removeAttribute("src");
    video.load();
    player = null;
  }
}

// --- Sound: one AudioContext for the page. WebCodecs pages decode packets and schedule each on
// its timeline; Media Source Extensions pages play it in the video element, routed through it.

const soundCodecs = ["mp4a.40.2", "opus"];
const soundNames = { "mp4a.40.2": "AAC", opus: "Opus" };
// Beyond the slowest arrival of the last few seconds, sound waits this long (ms) before it plays:
// the jitter buffer, which absorbs a packet that comes later than those before it.
const soundMargin = 40;
// How far back (ms) the slowest arrival is looked for: a stall raises the delay at once, and it
// comes back down this long after.
const arrivalWindow = 3000;
// A packet is laid right after the one before while it is within this many seconds of its own
// place, so small drifts between the clocks make no clicks; further off, the timeline restarts there.
const soundTolerance = 0.015;
// Beyond a few frames waiting for their sound, frames are painted anyway: a decoder may stop
// when too many of its frames are held.
const maxHeldFrames = 10;

const sound = {
  config: null, context: null, analyser: null, elementSource: null, decoder: null, levels: null,
  // Server ms at presentation time 0: a sound packet's capture time is this plus its time.
  captureAtZero: 0,
  // Where (context seconds) the next packet plays when it follows on, and the delay (ms, from
  // capture to play) packets are placed at; arrivals: recent {at, arrival} pairs, oldest first.
  playhead: 0, delay: null, arrivals: [],
  // Arrivals before this page time are passed over: the context was just made.
  settledAt: 0,
  latencies: [],
};

function setSoundState(state) {
  podium.audioState = state;
  soundButton.hidden = state !== "suspended";
}

// The codecs this browser can play this page's way; a WebCodecs page asks its AudioDecoder.
async function findPlayableSound() {
  if (typeof AudioContext !== "function") return [];
  if (decoderKind === "mse") {
    return soundCodecs.filter((codec) => MediaSource.isTypeSupported(`audio/mp4; codecs="${codec}"`));
  }
  if (typeof AudioDecoder !== "function") return [];
  const found = await Promise.all(soundCodecs.map((codec) =>
    AudioDecoder.isConfigSupported({ codec, sampleRate: 48000, numberOfChannels: 2 })
      .then((support) => support.supported ? codec : null, () => null)));
  return found.filter((codec) => codec !== null);
}

function configureSound(audio) {
  let playable = audio && playableSound.includes(audio.codec);
  if (playable && !sound.context) {
    try {
      openSoundContext(audio.sampleRate);
    } catch {
      playable = false;
    }
  }
  podium.audioCodec = audio?.codec ?? null;
  const name = soundNames[audio?.codec] ?? audio?.codec;
  const way = decoderKind === "mse" ? "over plain HTTP" : "here";
  showNotice(audio && !playable ? `This browser cannot play ${name} sound ${way}; the picture plays without it` : "");
  if (!playable) {
    setSoundState(audio ? "unsupported" : "none");
    sound.config = null;
    // Nothing to play: the context's thread rests.
    if (sound.context?.state === "running") sound.context.suspend().catch(() => {});
    return;
  }
  // Another rendition brings the same sound: it plays on undisturbed.
  if (sound.config && sound.config.codec === audio.codec && sound.config.description === audio.description) return;
  sound.config = audio;
  if (decoderKind === "webcodecs") openSoundDecoder(audio);
  // Runs now if the browser lets sound start without a click, or waits for one.
  if (sound.context.state === "suspended") sound.context.resume().catch(() => {});
  soundStateChanged();
}

// Made once a run with sound is there, and kept. The first AudioContext of a page holds its thread
// for up to a few hundred milliseconds: the packets that wait meanwhile are not taken for jitter.
function openSoundContext(sampleRate) {
  sound.context = new AudioContext({ latencyHint: "interactive", sampleRate });
  sound.settledAt = performance.now() + 500;
  sound.analyser = sound.context.createAnalyser();
  sound.analyser.fftSize = 2048;
  sound.levels = new Float32Array(sound.analyser.fftSize);
  sound.analyser.connect(sound.context.destination);
  sound.context.onstatechange = soundStateChanged;
}

// A context made without a click starts suspended where the browser wants one (most do).
function soundStateChanged() {
  if (!sound.config) return;
  const state = sound.context.state;
  setSoundState(state === "running" ? "running" : state === "closed" ? "closed" : "suspended");
  restartSoundTimeline();
  if (decoderKind !== "mse") return;
  const running = state === "running";
  // Routed through the context only once it runs: a suspended one would hold the element's clock.
  if (running && !sound.elementSource) {
    sound.elementSource = sound.context.createMediaElementSource(video);
    sound.elementSource.connect(sound.analyser);
  }
  video.muted = !running;
}

function resumeSound() {
  if (!sound.context || sound.context.state === "running" || !sound.config) return;
  sound.context.resume().catch(() => {});
  if (decoderKind === "mse") {
    // Unmuted within the click: a browser lets only a gesture unmute a playing element.
    video.muted = false;
    video.play().catch(() => {});
  }
}

function restartSoundTimeline() {
  sound.playhead = 0;
  sound.delay = null;
  sound.arrivals = [];
}

function openSoundDecoder(audio) {
  closeSoundDecoder();
  sound.decoder = new AudioDecoder({
    output: onSoundDecoded,
    error: (error) => {
      setSoundState("failed");
      showNotice(`Cannot decode the sound: ${error.message}`);
    },
  });
  const description = Uint8Array.from(atob(audio.description), (character) => character.charCodeAt(0));
  sound.decoder.configure({
    codec: audio.codec, sampleRate: audio.sampleRate, numberOfChannels: audio.channels,
    ...(description.length > 0 ? { description } : {}),
  });
}

function closeSoundDecoder() {
  if (sound.decoder && sound.decoder.state !== "closed") sound.decoder.close();
  sound.decoder = null;
}

function decodeSound(packet, data) {
  if (!sound.decoder || sound.decoder.state !== "configured") return;
  sound.captureAtZero = packet.captured - packet.timestamp / 1000;
  noteArrival(packet.captured);
  sound.decoder.decode(new EncodedAudioChunk({ type: "key", timestamp: packet.timestamp, data }));
}

// When a packet comes, against its capture time: the delay is set by the slowest of the last
// seconds. Taken as it arrives, not once decoded, so a decoder's slow start is not taken for jitter.
function noteArrival(captured) {
  const now = performance.now();
  if (clockOffset === null || now < sound.settledAt) return;
  const arrivals = sound.arrivals;
  arrivals.push({ at: now, arrival: now + clockOffset - captured });
  while (arrivals[0].at < now - arrivalWindow) arrivals.shift();
  let slowest = 0;
  for (const entry of arrivals) slowest = Math.max(slowest, entry.arrival);
  const wanted = slowest + soundMargin;
  // Later at once; sooner only when worth a skip in the sound.
  if (sound.delay === null || wanted > sound.delay || wanted < sound.delay - 2 * soundMargin) sound.delay = wanted;
}

function onSoundDecoded(data) {
  podium.audioDecoded += 1;
  const context = sound.context;
  // Suspended: nothing plays, so nothing is queued to play late once it runs.
  if (!context || context.state !== "running" || clockOffset === null) {
    data.close();
    return;
  }
  const buffer = context.createBuffer(data.numberOfChannels, data.numberOfFrames, data.sampleRate);
  for (let channel = 0; channel < data.numberOfChannels; channel++) {
    data.copyTo(buffer.getChannelData(channel), { planeIndex: channel, format: "f32-planar" });
  }
  const captured = sound.captureAtZero + data.timestamp / 1000;
  data.close();
  schedule(buffer, captured);
}

// Each packet plays at its capture time plus `sound.delay`, through the server clock offset, on
// the context's clock. The delay follows the slowest arrival of the last seconds plus the margin:
// at once when packets come later, and back toward the live edge when they come sooner again.
function schedule(buffer, captured) {
  const context = sound.context;
  const now = performance.now();
  // Decoded too late for its place (the decoder's first packets): the delay makes room for it.
  const decoded = now + clockOffset - captured;
  if (sound.delay === null || decoded + soundTolerance * 1000 > sound.delay) sound.delay = decoded + soundMargin;
  const contextNow = context.currentTime;
  const place = contextNow + (captured - clockOffset + sound.delay - now) / 1000;
  let start = sound.playhead;
  if (Math.abs(place - start) > soundTolerance) {
    if (place < start && start - place < 0.5) {
      // The delay came down: what would overlap the sound already queued is left out.
      podium.audioSkipped += 1;
      return;
    }
    start = place;
  }
  const source = context.createBufferSource();
  source.buffer = buffer;
  source.connect(sound.analyser);
  source.start(start);
  sound.playhead = start + buffer.duration;
  const latency = now + (start - contextNow) * 1000 + clockOffset - captured;
  sound.latencies.push(Math.round(latency * 10) / 10);
  podium.audioLatency = latency;
}

// How long (ms) after capture the sound is heard, for pictures to wait as long; null when no sound plays.
function soundHold() {
  const context = sound.context;
  if (!context || context.state !== "running" || sound.delay === null || !sound.config) return null;
  return sound.delay + ((context.baseLatency || 0) + (context.outputLatency || 0)) * 1000;
}

function measureSoundLevel() {
  if (!sound.analyser || podium.audioState !== "running") return;
  sound.analyser.getFloatTimeDomainData(sound.levels);
  let peak = 0;
  for (const sample of sound.levels) peak = Math.max(peak, Math.abs(sample));
  podium.audioLevel = peak;
  podium.audioPeak = Math.max(podium.audioPeak, peak);
}

soundButton.addEventListener("click", (event) => {
  event.stopPropagation();
  resumeSound();
});
addEventListener("click", resumeSound);
addEventListener("keydown", resumeSound);

// --- WebCodecs: decode at once; paint the newest frame whose time has come at each display
// refresh: at once without sound, when its sound is heard with it.

let decoder = null;
// Decoded frames not painted yet, oldest first.
const held = [];
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
  held.push(frame);
}

function paint() {
  requestAnimationFrame(paint);
  measureSoundLevel();
  if (held.length === 0) return;
  const now = performance.now();
  const hold = soundHold();
  let due = held.length;
  if (hold !== null && clockOffset !== null) {
    // Half a refresh early is nearer its time than the refresh after.
    due = 0;
    for (; due < held.length; due += 1) {
      const captured = captureTimes.get(held[due].timestamp);
      if (captured !== undefined && captured - clockOffset + hold > now + 8) break;
    }
    due = Math.max(due, held.length - maxHeldFrames);
  }
  if (due === 0) return;
  // Frames older than the one painted are never shown.
  for (const frame of held.splice(0, due - 1)) {
    captureTimes.delete(frame.timestamp);
    frame.close();
    podium.dropped += 1;
  }
  const frame = held.shift();
  context.drawImage(frame, 0, 0, canvas.width, canvas.height);
  recordLatency(now, captureTimes.get(frame.timestamp));
  captureTimes.delete(frame.timestamp);
  frame.close();
  podium.painted += 1;
  notePlaying();
}

// --- Media Source Extensions: fragments appended as they come. Without sound, frames play in
// sequence, each a frame interval long, at the live edge. With sound, picture and sound each
// have a SourceBuffer and are placed at their own times, so the element keeps them in step; the
// live edge is where both are there.

let player = null;
// Behind the live edge with sound, seconds: the element's jitter buffer.
const soundLag = 0.1;

// One SourceBuffer and what waits to be appended to it.
function sourceTrack(type) {
  return {
    type, buffer: null, operations: [],
    add(operation) {
      this.operations.push(operation);
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
    },
  };
}

function configurePlayer(config) {
  const type = `video/mp4; codecs="${config.codec}"`;
  // One frame's length in the fragments: frames follow each other in sequence, each this long.
  const frameSeconds = Math.round(1e6 / config.fps) / 1e6;
  if (player && player.picture.buffer) {
    player.frameSeconds = frameSeconds;
    player.picture.add(() => player.picture.buffer.changeType(type));
    return;
  }
  if (!MediaSource.isTypeSupported(type)) {
    showStatus(`This browser cannot play ${config.codec}`);
    return;
  }
  const timed = sound.config !== null;
  const source = new MediaSource();
  player = {
    source, frameSeconds, timed, appended: 0, captures: new Map(),
    picture: sourceTrack(type),
    sound: timed ? sourceTrack(`audio/mp4; codecs="${sound.config.codec}"`) : null,
    // The newest sound packet's time (s) and capture time; the times of packets not played yet.
    lastSound: null, soundTimes: [],
    initialize(track, data) {
      this[track]?.add(() => this[track].buffer.appendBuffer(data));
    },
    append(data, frame) {
      // In sequence, a frame is known by its place; at its own time, by that time in ms.
      const key = this.timed ? Math.round(frame.timestamp / 1000) : this.appended++;
      this.captures.set(key, frame.captured);
      this.picture.add(() => this.picture.buffer.appendBuffer(data));
    },
    appendSound(data, packet) {
      if (!this.sound) return;
      this.lastSound = { time: packet.timestamp / 1e6, captured: packet.captured };
      this.soundTimes.push(packet.timestamp / 1e6);
      this.sound.add(() => this.sound.buffer.appendBuffer(data));
    },
    pump() {
      this.picture.pump();
      this.sound?.pump();
      this.chase();
    },
    // Stay near the newest picture (and sound): jump when far behind, hurry when a little.
    chase() {
      const ranges = video.buffered;
      if (ranges.length === 0) return;
      const start = ranges.start(ranges.length - 1);
      const end = ranges.end(ranges.length - 1);
      const lag = this.timed ? soundLag : this.frameSeconds;
      const behind = end - video.currentTime;
      if (behind > 1 || video.currentTime < start) video.currentTime = Math.max(start, end - lag);
      // Sound played faster keeps its pitch, but only a little faster goes unnoticed.
      if (this.timed) video.playbackRate = behind > lag + 0.05 ? 1.1 : 1;
      else video.playbackRate = behind > 4 * this.frameSeconds ? 1.5 : 1;
      if (video.paused) video.play().catch(() => {});
    },
  };
  video.src = URL.createObjectURL(source);
  source.addEventListener("sourceopen", () => {
    // Both before anything is appended: a browser takes no new SourceBuffer after the first segment.
    for (const track of [player.picture, player.sound]) {
      if (!track) continue;
      track.buffer = source.addSourceBuffer(track.type);
      track.buffer.mode = timed ? "segments" : "sequence";
      track.buffer.addEventListener("updateend", () => player?.pump());
    }
    player.pump();
  });
  video.classList.add("shown");
}

function onVideoFrame(now, metadata) {
  video.requestVideoFrameCallback(onVideoFrame);
  if (!player) return;
  const key = player.timed ? Math.round(metadata.mediaTime * 1000)
    : Math.round(metadata.mediaTime / player.frameSeconds);
  recordLatency(metadata.expectedDisplayTime, player.captures.get(key));
  for (const earlier of player.captures.keys()) {
    if (earlier > key) break;
    player.captures.delete(earlier);
  }
  podium.painted += 1;
  notePlaying();
  const last = player.lastSound;
  if (last && clockOffset !== null && podium.audioState === "running") {
    // The sound heard with this frame was captured as long before its time as the newest packet was before its own.
    const captured = last.captured + (metadata.mediaTime - last.time) * 1000;
    const latency = metadata.expectedDisplayTime + clockOffset - captured;
    sound.latencies.push(Math.round(latency * 10) / 10);
    podium.audioLatency = latency;
  }
}

// Sound the element played, for the report: packets whose time it has passed.
function noteSoundPlayed() {
  if (!player || !player.sound || !player.sound.buffer) return;
  const times = player.soundTimes;
  let played = 0;
  while (played < times.length && times[played] <= video.currentTime) played += 1;
  times.splice(0, played);
  podium.audioDecoded += played;
  const ranges = player.sound.buffer.buffered;
  let seconds = 0;
  for (let i = 0; i < ranges.length; i++) seconds += ranges.end(i) - ranges.start(i);
  podium.audioBuffered = seconds;
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
    noteSoundPlayed();
  }
  const decodeMs = decodeTimes.length ? decodeTimes.reduce((a, b) => a + b) / decodeTimes.length : null;
  send({
    type: "report", decoder: decoderKind, decoded: podium.decoded, dropped: podium.dropped, decodeMs,
    latencies, queue: deepestQueue, ...pictureSize(),
    audioState: podium.audioState, audioDecoded: podium.audioDecoded, audioLatencies: sound.latencies,
  });
  if (!statsBox.hidden) {
    const latency = median(latencies);
    const soundLatency = median(sound.latencies);
    statsBox.textContent = [
      `${podium.decoder}  ${podium.rendition ?? "-"}  ${podium.width}x${podium.height}`,
      `painted ${latencies.length}/s  decoded ${podium.decoded}  dropped ${podium.dropped}`,
      `latency ${latency === null ? "-" : latency.toFixed(0) + " ms"}` +
        (decodeMs === null ? "" : `  decode ${decodeMs.toFixed(1)} ms`),
      `sound ${podium.audioState}` + (soundLatency === null ? "" : `  latency ${soundLatency.toFixed(0)} ms`) +
        (podium.audioState === "running" ? `  level ${podium.audioLevel.toFixed(2)}` : ""),
    ].join("\n");
  }
  latencies = [];
  decodeTimes = [];
  sound.latencies = [];
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
findPlayableSound().then((codecs) => {
  // A page that shows the picture only (the remote's preview) asks for no sound.
  playableSound = document.body.dataset.sound === "off" ? [] : codecs;
  connect();
}, () => connect());
