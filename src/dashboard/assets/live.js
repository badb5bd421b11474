// Live regions: an element with data-live-src="URL" has its content replaced by that URL's HTML (a fragment
// rendered by the server) every data-live-every milliseconds (default 2000) while the page is visible. A
// fragment holding [data-live-reload] means the page around it changed too (a job ended): the page reloads; one
// holding [data-live-done] is final (a count has ended): the region stops asking.
for (const region of document.querySelectorAll("[data-live-src]")) {
  const every = Number(region.dataset.liveEvery) || 2000;
  let last = "";
  let busy = false;
  let timer;
  const refresh = async () => {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const response = await fetch(region.dataset.liveSrc, { headers: { accept: "text/html" } });
      // Redirected to sign-in: the session ended; reloading shows the sign-in page.
      if (response.redirected) return window.location.reload();
      if (!response.ok) return;
      const html = await response.text();
      if (html !== last) {
        last = html;
        region.innerHTML = html;
        if (region.querySelector("[data-live-reload]")) return window.location.reload();
        if (region.querySelector("[data-live-done]")) clearInterval(timer);
        region.dataset.liveUpdated = String(Date.now());
      }
    } catch {
      // The server is restarting or the network dropped: try again on the next tick.
    } finally {
      busy = false;
    }
  };
  timer = setInterval(refresh, every);
}
