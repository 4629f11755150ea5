/**
 * The SCORM runtime's host page (issue 37, decision 306): a small HTML page served FROM THE CONTENT
 * ORIGIN (decision 270) at RUNTIME_HOST_PATH, framed by the player page of the site. It loads
 * scorm-again (the site's `/player/scorm-again.js`), offers `window.API` (1.2) or
 * `window.API_1484_11` (2004) and frames the SCO under it, so the SCO finds the API in its parent
 * chain on its own origin. It holds no credential: the player page sends it the launch (model, the
 * SCO's CMI data and its URL) by postMessage, and it sends every Initialize, Commit and Terminate
 * back the same way; the player page keeps them with the learner's session. Messages are taken
 * from the site's origin and the parent window only.
 */

/** Where the content origin answers the host page (no launch token: it is the same for every launch). */
export const RUNTIME_HOST_PATH = '/runtime/host.html';

/** The site path of scorm-again's browser file (served by the pages group from its embed). */
export const SCORM_RUNTIME_PATH = '/player/scorm-again.js';

/**
 * The host's script. scorm-again commits through `httpService` (its documented seam for the
 * transport). A learner's launch carries a commit capability (decision 326): the host POSTs the
 * flattened CMI data synchronously to the API's runtime commit route and answers the library
 * what the server said (false with 391 in 2004, 101 in 1.2, when the save failed), then tells the
 * page (`committed`: version, result, navigation). A preview has none: the data goes to the page,
 * which keeps nothing, and the call answers true. Every SetValue sends the data as `state` too, so
 * the page can keep it on unload.
 */
const HOST_SCRIPT = `(function () {
  'use strict';
  var site = document.documentElement.getAttribute('data-site');
  var api = null;
  var started = false;
  var finished = false;
  function send(message) { window.parent.postMessage(message, site); }
  // scorm-again renders empty collections as {} and some values as numbers: the page takes strings only.
  function flat(cmi) {
    var out = {};
    for (var key in cmi) {
      var value = cmi[key];
      if (typeof value === 'string') out[key] = value;
      else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    }
    return out;
  }
  function navRequest() {
    try { return api.adl && api.adl.nav ? String(api.adl.nav.request || '') : ''; } catch (e) { return ''; }
  }
  // The synchronous commit (decision 326): with the launch's capability the host commits itself to
  // the API and the SCO learns the truth (false with 391 / 101 when the save failed); the page is told.
  var sync = null;
  var version = 0;
  function keep(body) {
    try {
      var xhr = new XMLHttpRequest();
      xhr.open('POST', sync.url, false);
      xhr.setRequestHeader('Content-Type', 'application/json');
      xhr.setRequestHeader('Authorization', 'ScormCommit ' + sync.capability);
      xhr.send(JSON.stringify(body));
      if (xhr.status !== 200) return null;
      var attempt = JSON.parse(xhr.responseText);
      return attempt && typeof attempt.version === 'number' ? attempt : null;
    } catch (e) {
      return null;
    }
  }
  function commitNow(cmi, flags) {
    var body = { version: version, sco: sync.sco, cmi: cmi };
    if (flags.initialize) body.initialize = true;
    if (flags.terminate) body.terminate = true;
    if (flags.terminate && flags.nav) body.nav = flags.nav;
    var attempt = keep(body);
    if (attempt) version = attempt.version;
    send({
      type: 'committed',
      ok: !!attempt,
      version: version,
      initialize: !!flags.initialize,
      terminate: !!flags.terminate,
      nav: flags.nav || '',
      completion: attempt ? String(attempt.completion_status) : '',
      satisfied: !!(attempt && attempt.satisfied === true),
      delivery: attempt && attempt.navigation ? attempt.navigation : null,
    });
    return !!attempt;
  }
  function start(launch) {
    var grant = launch.commit;
    if (
      grant &&
      typeof grant.url === 'string' &&
      typeof grant.capability === 'string' &&
      typeof grant.sco === 'string' &&
      typeof grant.version === 'number'
    ) {
      sync = grant;
      version = grant.version;
    }
    var failure = launch.model === 'scorm12' ? 101 : 391;
    var settings = {
      autocommit: false,
      lmsCommitUrl: 'stepwise:player',
      dataCommitFormat: 'flattened',
      logLevel: 5,
      httpService: {
        processHttpRequest: function (url, params, immediate) {
          var nav = immediate ? navRequest() : '';
          if (sync) {
            var ok = commitNow(flat(params), { terminate: !!immediate, nav: nav });
            return ok ? { result: 'true', errorCode: 0 } : { result: 'false', errorCode: failure };
          }
          send({ type: 'commit', cmi: flat(params), terminate: !!immediate, nav: nav });
          return { result: 'true', errorCode: 0 };
        },
        updateSettings: function () {},
      },
    };
    var scorm12 = launch.model === 'scorm12';
    api = scorm12 ? new window.Scorm12API(settings) : new window.Scorm2004API(settings);
    api.loadFromFlattenedJSON(launch.cmi, '');
    // adl.nav.request_valid before Initialize (it is read-only after): the page's navigation (decision 325).
    var valid = launch.nav_valid;
    if (!scorm12 && valid && typeof valid === 'object') {
      try {
        var requestValid = api.adl.nav.request_valid;
        if (valid.continue === 'true' || valid.continue === 'false') requestValid.continue = valid.continue;
        if (valid.previous === 'true' || valid.previous === 'false') requestValid.previous = valid.previous;
        var choice = {};
        for (var id in valid.choice)
          if (valid.choice[id] === 'true' || valid.choice[id] === 'false') choice[id] = valid.choice[id];
        requestValid.choice.setAll(choice);
      } catch (e) {}
    }
    api.on(scorm12 ? 'LMSInitialize' : 'Initialize', function () {
      finished = false;
      var cmi = flat(api.renderCommitCMI(false));
      if (sync) commitNow(cmi, { initialize: true });
      else send({ type: 'commit', initialize: true, cmi: cmi });
    });
    api.on(scorm12 ? 'LMSSetValue' : 'SetValue', function () {
      send({ type: 'state', cmi: flat(api.renderCommitCMI(false)) });
    });
    api.on(scorm12 ? 'LMSFinish' : 'Terminate', function () { finished = true; });
    if (scorm12) {
      // scorm-again 3.4 answers "true" to an LMSCommit after LMSFinish; RTE 1.2 says false (101).
      var commit = api.LMSCommit.bind(api);
      api.LMSCommit = function (parameter) {
        if (!finished) return commit(parameter);
        api.lastErrorCode = '101';
        return 'false';
      };
    }
    if (scorm12) window.API = api; else window.API_1484_11 = api;
    var frame = document.createElement('iframe');
    frame.title = String(launch.title || 'Module');
    frame.src = String(launch.url);
    document.body.appendChild(frame);
  }
  window.addEventListener('message', function (event) {
    if (event.origin !== site || event.source !== window.parent) return;
    var data = event.data;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'hello' && !started) {
      send({ type: 'ready' });
    } else if (data.type === 'launch' && !started) {
      started = true;
      start(data);
    } else if (data.type === 'commit-failed' && api) {
      api.lastErrorCode = data.model === 'scorm12' ? '101' : '391';
    }
  });
  send({ type: 'ready' });
})();`;

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The host page for a site (its origin: where messages come from and scorm-again is loaded). */
export function runtimeHostPage(siteOrigin: string): string {
  const site = new URL(siteOrigin).origin;
  return `<!doctype html>
<html lang="en" data-site="${attribute(site)}">
<head>
<meta charset="utf-8">
<title>SCORM runtime</title>
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style>
<script src="${attribute(site + SCORM_RUNTIME_PATH)}"></script>
</head>
<body>
<script>${HOST_SCRIPT}</script>
</body>
</html>
`;
}
