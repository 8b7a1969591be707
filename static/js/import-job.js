// The CSV import's page follows its job: every 1.5 s it fetches the job's part of the page (rendered and escaped
// by the server) and puts it in place, until the job is done or stopped.
(function () {
  "use strict";
  const EVERY_MS = 1500;

  function current() {
    return document.getElementById("import-job");
  }

  function finished(box) {
    return !box || box.dataset.state === "done" || box.dataset.state === "failed";
  }

  async function refresh() {
    const box = current();
    if (finished(box)) return;
    try {
      const response = await fetch(box.dataset.progressUrl, { credentials: "same-origin", redirect: "manual" });
      if (!response.ok) return; // signed out (sent to the login) or gone: the page stays as it is
      const holder = document.createElement("div");
      holder.innerHTML = await response.text();
      const fresh = holder.querySelector("#import-job");
      if (fresh) box.replaceWith(fresh);
    } catch (error) {
      // the server is restarting or the network hiccuped: try again at the next turn
    }
    if (!finished(current())) setTimeout(refresh, EVERY_MS);
  }

  document.addEventListener("DOMContentLoaded", () => setTimeout(refresh, EVERY_MS));
})();
