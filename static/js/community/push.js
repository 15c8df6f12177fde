// "Allow push in this browser" on the notification settings (templates/community/notes/
// settings.html): registers the service worker (static/js/push-sw.js), subscribes with the
// site's VAPID key and sends the subscription to the site; "Stop" undoes both.
(function () {
  "use strict";

  function key(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  function b64(buffer) {
    var bytes = new Uint8Array(buffer), text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return window.btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function active(registration) {
    var worker = registration.installing || registration.waiting;
    if (registration.active || !worker) return registration;
    return new Promise(function (resolve) {
      worker.addEventListener("statechange", function () {
        if (worker.state === "activated") resolve(registration);
      });
    });
  }

  function init() {
    var panel = document.querySelector(".push-panel");
    if (!panel || !("serviceWorker" in navigator) || !("PushManager" in window)) return;
    var on = panel.querySelector("[data-push-on]"), off = panel.querySelector("[data-push-off]");
    var status = panel.querySelector(".push-status");
    var csrf = panel.querySelector("input[name=csrfmiddlewaretoken]").value;
    panel.hidden = false;

    function show(subscribed, text) {
      on.hidden = subscribed;
      off.hidden = !subscribed;
      if (text !== undefined) status.textContent = text;
    }

    function post(url, fields) {
      var body = new FormData();
      body.append("csrfmiddlewaretoken", csrf);
      Object.keys(fields).forEach(function (name) { body.append(name, fields[name]); });
      return fetch(url, { method: "POST", body: body, credentials: "same-origin" }).then(function (answer) {
        return answer.text().then(function (text) {
          if (!answer.ok) throw new Error(text);
          return text;
        });
      });
    }

    // The worker's scope is its static folder, not this page, so serviceWorker.ready (which
    // waits for a worker of this page's scope) would never come: wait for this one to activate.
    var ready = navigator.serviceWorker.register(panel.dataset.worker).then(active);
    ready.then(function (registration) { return registration.pushManager.getSubscription(); })
      .then(function (subscription) { show(Boolean(subscription)); }, function () { show(false); });

    on.addEventListener("click", function () {
      on.disabled = true;
      Notification.requestPermission().then(function (permission) {
        if (permission !== "granted") throw new Error(panel.dataset.denied);
        return ready;
      }).then(function (registration) {
        return registration.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: key(panel.dataset.pushKey)
        });
      }).then(function (subscription) {
        return post(panel.dataset.subscribe, {
          endpoint: subscription.endpoint,
          p256dh: b64(subscription.getKey("p256dh")),
          auth: b64(subscription.getKey("auth"))
        });
      }).then(function (text) { show(true, text); }, function (error) {
        show(false, error && error.message === panel.dataset.denied ? error.message : panel.dataset.failed);
      }).then(function () { on.disabled = false; });
    });

    off.addEventListener("click", function () {
      ready.then(function (registration) { return registration.pushManager.getSubscription(); })
        .then(function (subscription) {
          if (!subscription) return panel.dataset.off;
          var endpoint = subscription.endpoint;
          return subscription.unsubscribe().then(function () {
            return post(panel.dataset.unsubscribe, { endpoint: endpoint });
          });
        }).then(function (text) { show(false, text); }, function () { show(false, panel.dataset.failed); });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
