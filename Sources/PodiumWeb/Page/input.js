// An extra screen's pointer and keys (podium extend --allow-input): with the link's input token
// (kept by Podium in a cookie once the link was opened, `?input` left in the address), what is
// done on the picture is sent to Podium, which plays it on the monitor the picture shows.
(() => {
  if (!new URLSearchParams(location.search).has("input")) return;
  document.body.classList.add("input");
  // What Podium took so far, for whoever checks the page (the tests).
  const report = (window.podiumInput = { sent: 0 });
  const queue = [];
  let sending = false;
  // Each batch is numbered higher than the last, across reloads too (the clock's microseconds):
  // Podium plays no batch twice.
  let number = Date.now() * 1000;
  // Buttons down, and each key down by where it is on the keyboard (`code`) with the key sent as
  // it went down, which its release sends again (Shift let go first would make "A" an "a"). While
  // any is down, an empty batch each second says the page is still here (Podium lets go of them
  // when it hears nothing for 3 s).
  const buttons = new Set();
  const keys = new Map();
  setInterval(() => { if ((buttons.size || keys.size) && queue.length === 0 && !sending) send(true); }, 1000);

  // Where a pointer event lies on the picture, 0 to 1 across and down: the picture is fitted into
  // its element, bars beside or above it.
  function place(event) {
    const element = [canvas, video].find((shown) => shown.classList.contains("shown"));
    const width = element && (element.videoWidth || element.width);
    const height = element && (element.videoHeight || element.height);
    if (!width || !height) return null;
    const box = element.getBoundingClientRect();
    const scale = Math.min(box.width / width, box.height / height);
    const left = box.left + (box.width - width * scale) / 2;
    const top = box.top + (box.height - height * scale) / 2;
    return [(event.clientX - left) / (width * scale), (event.clientY - top) / (height * scale)];
  }

  // One request at a time; what comes meanwhile waits for the next (at most 128 at once).
  function send(evenEmpty) {
    if (sending || (queue.length === 0 && !evenEmpty)) return;
    sending = true;
    const events = queue.splice(0, 128);
    number = Math.max(number + 1, Date.now() * 1000);
    fetch("/input", { method: "POST", body: JSON.stringify({ seq: number, events }) })
      .then(async (response) => {
        if (response.ok) report.sent += events.length;
        // Numbered below the last Podium played (another page, a clock set back): past it, again.
        if (response.status === 409) {
          number = Math.max(number, (await response.json()).last);
          queue.unshift(...events);
        }
      })
      .catch(() => {})
      .finally(() => {
        sending = false;
        if (queue.length) requestAnimationFrame(send);
      });
  }

  function push(event) {
    // Moves in a row keep only the last: the pointer's place matters, not its path.
    const last = queue[queue.length - 1];
    if (event[0] === "m" && last && last[0] === "m") {
      queue[queue.length - 1] = event;
    } else if (queue.length < 512) {
      queue.push(event);
    }
    requestAnimationFrame(send);
  }

  const onPicture = (event) => !(event.target instanceof HTMLButtonElement);
  document.addEventListener("pointermove", (event) => {
    const at = onPicture(event) && place(event);
    if (at) push(["m", at[0], at[1]]);
  });
  for (const [kind, down] of [["pointerdown", 1], ["pointerup", 0]]) {
    document.addEventListener(kind, (event) => {
      const at = onPicture(event) && place(event);
      if (!at) return;
      event.preventDefault();
      push(["m", at[0], at[1]]);
      push(["b", event.button + 1, down]);
      if (down) buttons.add(event.button); else buttons.delete(event.button);
    });
  }
  document.addEventListener("contextmenu", (event) => event.preventDefault());
  for (const [kind, down] of [["keydown", 1], ["keyup", 0]]) {
    document.addEventListener(kind, (event) => {
      event.preventDefault();
      if (down && !keys.has(event.code)) keys.set(event.code, event.key);
      push(["k", keys.get(event.code) ?? event.key, down]);
      if (!down) keys.delete(event.code);
    });
  }
})();
