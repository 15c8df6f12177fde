// The service worker of browser push (community/services/push.py sends; static/js/community/
// push.js registers it): a push shows as a notification; a click opens (or focuses) its page.
self.addEventListener("push", function (event) {
  "use strict";
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (notJson) { // eslint-disable-line no-unused-vars
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(self.registration.showNotification(data.title || "", {
    body: data.body || "", tag: data.tag, data: { url: data.url || "/" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  "use strict";
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (pages) {
    for (var i = 0; i < pages.length; i++) {
      if (pages[i].url === url && "focus" in pages[i]) return pages[i].focus();
    }
    return self.clients.openWindow(url);
  }));
});
