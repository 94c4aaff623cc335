"use strict";
// Podium's remote, on the presenter's phone: each button sends the control socket's own request
// (the mirror window's key, `{"command":"key","value":"b"}`) and shows what it changed; once a
// second it asks for the run's status, and draws the last minute of its frame rate, CPU and drops.
// The preview above it is the viewer's script, without sound.
(() => {
  const said = document.getElementById("said");
  const figures = document.getElementById("figures");
  const chart = document.getElementById("chart");
  // Shown while the run keeps a replay (--replay).
  const save = document.getElementById("save");
  const samples = [];
  const kept = 60;
  // For tests and the curious: what was sent and how fast the run answered.
  const remote = { sent: 0, answered: 0, lastAnswerMs: null, said: "", samples };
  window.podiumRemote = remote;

  async function request(body) {
    const started = performance.now();
    // Its token is the cookie Podium left as the link was opened.
    const response = await fetch("/remote/control", {
      method: "POST", body: JSON.stringify(body), cache: "no-store",
    });
    if (!response.ok) throw new Error(await response.text());
    return { reply: await response.json(), ms: performance.now() - started };
  }

  function say(text) {
    said.textContent = text;
    remote.said = text;
  }

  const controls = document.getElementById("controls");
  // A quick second tap (fps + twice) is two presses, not the viewer's full-screen double click.
  controls.addEventListener("dblclick", (event) => event.stopPropagation());
  for (const button of controls.querySelectorAll("button")) {
    button.addEventListener("click", async () => {
      button.classList.add("busy");
      remote.sent += 1;
      try {
        const { reply, ms } = await request({ command: "key", value: button.dataset.key });
        remote.answered += 1;
        remote.lastAnswerMs = ms;
        say(reply.ok ? (reply.changes.join("; ") || "nothing to change") : reply.error);
        if (reply.status) take(reply.status);
      } catch (error) {
        say(`The run did not answer: ${error.message}`);
      }
      button.classList.remove("busy");
    });
  }

  function take(status) {
    const sample = status.sample;
    if (sample) save.hidden = !sample.replay;
    if (!sample || (samples.length && samples[samples.length - 1].elapsed === sample.elapsed)) return;
    const drops = sample.drops;
    samples.push({
      elapsed: sample.elapsed, fps: sample.capturedFPS, target: sample.targetFPS, cpu: sample.cpuCores,
      drops: drops.skipped + drops.noBuffer + drops.encoder + drops.sinks + drops.window,
    });
    if (samples.length > kept) samples.shift();
    const last = samples[samples.length - 1];
    figures.textContent = `${last.fps.toFixed(1)}/${last.target} fps  cpu ${last.cpu.toFixed(2)}`
      + `  drops ${last.drops}  ${status.picture}${status.rate ? "  " + status.rate : ""}`
      + (sample.recording ? `  ${recorded(sample.recording)}` : "");
    draw();
  }

  // "rec 12:34", "rec paused 1:02:03": as the stats line says it.
  function recorded(recording) {
    const whole = Math.floor(recording.seconds);
    const two = (value) => String(value).padStart(2, "0");
    const time = whole >= 3600 ? `${Math.floor(whole / 3600)}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}`
      : `${Math.floor(whole / 60)}:${two(whole % 60)}`;
    return `rec ${recording.isPaused ? "paused " : ""}${time}`;
  }

  // The frame rate against its target (green), the CPU in cores (amber, 1 core at the top or the
  // most seen), and drops as red bars.
  function draw() {
    const ratio = devicePixelRatio || 1;
    const width = Math.round(chart.clientWidth * ratio);
    const height = Math.round(chart.clientHeight * ratio);
    if (chart.width !== width || chart.height !== height) [chart.width, chart.height] = [width, height];
    const context = chart.getContext("2d");
    context.clearRect(0, 0, width, height);
    const step = width / (kept - 1);
    const x = (index) => width - (samples.length - 1 - index) * step;
    const top = Math.max(1, ...samples.map((sample) => sample.cpu));
    context.fillStyle = "#e5484d";
    samples.forEach((sample, index) => {
      if (sample.drops > 0) context.fillRect(x(index) - ratio, height * 0.7, 2 * ratio, height * 0.3);
    });
    const line = (colour, value) => {
      context.strokeStyle = colour;
      context.lineWidth = 2 * ratio;
      context.beginPath();
      samples.forEach((sample, index) => {
        const y = height - Math.min(1, value(sample)) * (height - 2 * ratio) - ratio;
        if (index === 0) context.moveTo(x(index), y); else context.lineTo(x(index), y);
      });
      context.stroke();
    };
    line("#46a758", (sample) => sample.fps / Math.max(1, sample.target));
    line("#f5a623", (sample) => sample.cpu / top);
  }

  async function poll() {
    try {
      const { reply } = await request({ command: "status" });
      if (reply.status) take(reply.status);
    } catch (error) {
      say(`The run does not answer: ${error.message}`);
    }
    setTimeout(poll, 1000);
  }
  poll();
})();
