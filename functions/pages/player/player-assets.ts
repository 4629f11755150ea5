/**
 * The player page's own script and styles (decision 306), served at /player/player.js and
 * /player/player.css (the page's CSP allows scripts and styles of the site only).
 *
 * The script is the site's end of the runtime: it frames the runtime host on the content origin,
 * answers its `ready` with the launch (model, the SCO's CMI data and URL), and keeps each of the
 * host's commits (Initialize, Commit, Terminate) by POSTing them, in order, to
 * `/ExternalTrainingModule/{id}/commit` with the session cookie and the page's CSRF token. Only
 * messages from the content origin AND from the host's own window are read; anything else is
 * ignored. The latest data of every SetValue is kept too and sent with `fetch(keepalive)` when the
 * page goes away before the SCO committed it. After a 2004 Terminate with a navigation request
 * (continue, previous, choice, exit all, suspend all) the page moves on through the TOC.
 */

export const PLAYER_SCRIPT = `(function () {
  'use strict';
  var root = document.getElementById('player');
  var frame = document.getElementById('player-runtime');
  var status = document.getElementById('player-status');
  if (!root || !frame) return;
  var launch = JSON.parse(root.getAttribute('data-launch'));
  var version = launch.version;
  var queue = Promise.resolve(true);
  var pending = null;
  var ended = false;
  var launched = false;
  var delivery = null;
  var MAX_ELEMENTS = 5000;

  function say(text) { if (status) status.textContent = text; }
  // Data a SetValue changed that no commit has kept yet (sent on pagehide); shown for the tests.
  function hold(cmi) {
    pending = cmi;
    root.setAttribute('data-pending', cmi ? 'true' : 'false');
  }
  function isCmi(value) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    var keys = Object.keys(value);
    if (keys.length > MAX_ELEMENTS) return false;
    for (var i = 0; i < keys.length; i++) if (typeof value[keys[i]] !== 'string') return false;
    return true;
  }
  function form(body) {
    var fields = new URLSearchParams();
    fields.set('csrf', launch.csrf);
    fields.set('attempt', String(launch.attempt));
    fields.set('data', JSON.stringify(body));
    return fields;
  }
  function body(message, cmi) {
    var commit = { version: version, sco: launch.sco, cmi: cmi };
    if (message.initialize) commit.initialize = true;
    if (message.terminate) commit.terminate = true;
    if (message.terminate && message.nav) commit.nav = message.nav;
    return commit;
  }
  function save(message) {
    if (launch.mode !== 'learner') return Promise.resolve(true);
    var request = { method: 'POST', credentials: 'same-origin', body: form(body(message, message.cmi)) };
    return fetch(launch.commit_url, request)
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (attempt) {
        version = attempt.version;
        delivery = attempt.navigation || null;
        root.setAttribute('data-version', String(version));
        root.setAttribute('data-completion', String(attempt.completion_status));
        say(attempt.satisfied ? 'Completed. Your progress is saved.' : 'Your progress is saved.');
        return true;
      })
      .catch(function () {
        say('Your progress could not be saved.');
        frame.contentWindow.postMessage({ type: 'commit-failed', model: launch.model }, launch.content_origin);
        return false;
      });
  }
  function go(href) { if (href) window.location.assign(href); }
  function close(text) {
    say(text);
    frame.remove();
  }
  function has(urls, id) { return Object.prototype.hasOwnProperty.call(urls, id); }
  // What the server's sequencing rules decided for this request (decision 335): followed when it decided.
  function follow(request) {
    var decided = delivery;
    delivery = null;
    if (!decided || typeof decided !== 'object' || decided.request !== request) return false;
    if (typeof decided.deliver === 'string' && has(launch.jump_urls, decided.deliver)) {
      go(launch.jump_urls[decided.deliver]);
      return true;
    }
    if (decided.end === true) {
      if (request === 'suspendAll') close('Suspended. Open the module again to resume where you left off.');
      else if (request === 'continue' || request === 'previous') close('You have reached the end of the module.');
      else close('The module is closed.');
      return true;
    }
    if (typeof decided.message === 'string') {
      say(decided.message + '.');
      return true;
    }
    return false;
  }
  // After a 2004 Terminate: the server's decision, else the navigation the control modes allow (decision 325).
  function navigate(request) {
    if (!request || request === '_none_') return;
    if (follow(request)) return;
    if (request === 'continue') {
      if (launch.next_url) return go(launch.next_url);
      if (launch.end) return close('You have reached the end of the module.');
      return say('Continue is not available here: choose from the contents.');
    }
    if (request === 'previous') {
      if (launch.previous_url) return go(launch.previous_url);
      return say('Previous is not available here: choose from the contents.');
    }
    var target = /^\\{target=([^}]+)\\}(choice|jump)$/.exec(request);
    if (target) {
      var urls = target[2] === 'jump' ? launch.jump_urls : launch.sco_urls;
      if (Object.prototype.hasOwnProperty.call(urls, target[1])) return go(urls[target[1]]);
      return say('That part of the module cannot be chosen from here.');
    }
    if (request === 'suspendAll') return close('Suspended. Open the module again to resume where you left off.');
    if (request === 'exitAll' || request === 'exit' || request === 'abandonAll' || request === 'abandon')
      close('The module is closed.');
  }
  function navValid() {
    var choice = {};
    for (var id in launch.jump_urls)
      choice[id] = Object.prototype.hasOwnProperty.call(launch.sco_urls, id) ? 'true' : 'false';
    return {
      continue: launch.next_url || launch.end ? 'true' : 'false',
      previous: launch.previous_url ? 'true' : 'false',
      choice: choice,
    };
  }
  window.addEventListener('message', function (event) {
    if (event.origin !== launch.content_origin || event.source !== frame.contentWindow) return;
    var data = event.data;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'ready' && !launched) {
      launched = true;
      frame.contentWindow.postMessage(
        {
          type: 'launch',
          model: launch.model,
          cmi: launch.cmi,
          url: launch.sco_url,
          title: launch.title,
          nav_valid: navValid(),
          commit: launch.runtime_commit,
        },
        launch.content_origin,
      );
    } else if (data.type === 'state' && isCmi(data.cmi) && !ended) {
      hold(data.cmi);
    } else if (data.type === 'committed' && typeof data.version === 'number') {
      // The host kept it itself (decision 326): follow the version, say the outcome, move on after Terminate.
      hold(null);
      if (data.terminate === true) ended = true;
      else if (data.initialize === true) ended = false;
      if (!data.ok) return say('Your progress could not be saved.');
      version = data.version;
      delivery = data.delivery && typeof data.delivery === 'object' ? data.delivery : null;
      root.setAttribute('data-version', String(version));
      root.setAttribute('data-completion', String(data.completion));
      say(data.satisfied === true ? 'Completed. Your progress is saved.' : 'Your progress is saved.');
      if (data.terminate === true) navigate(typeof data.nav === 'string' ? data.nav : '');
    } else if (data.type === 'commit' && isCmi(data.cmi)) {
      hold(null);
      if (data.terminate) ended = true;
      else if (data.initialize) ended = false;
      var nav = typeof data.nav === 'string' ? data.nav : '';
      var message = {
        cmi: data.cmi,
        initialize: data.initialize === true,
        terminate: data.terminate === true,
        nav: nav,
      };
      queue = queue.then(function () { return save(message); }).then(function (ok) {
        if (ok && message.terminate) navigate(nav);
        return ok;
      });
    }
  });
  // Whichever loads first: the host says ready when it starts, and again when this says hello.
  frame.contentWindow.postMessage({ type: 'hello' }, launch.content_origin);
  frame.addEventListener('load', function () {
    frame.contentWindow.postMessage({ type: 'hello' }, launch.content_origin);
  });
  // Links of the TOC wait for the commits in flight, so the next launch reads what was kept.
  document.addEventListener('click', function (event) {
    var link = event.target && event.target.closest ? event.target.closest('a[data-sco-link]') : null;
    if (!link) return;
    event.preventDefault();
    queue.then(function () { go(link.getAttribute('href')); });
  });
  window.addEventListener('pagehide', function () {
    if (!pending || ended || launch.mode !== 'learner') return;
    var request = { method: 'POST', credentials: 'same-origin', keepalive: true, body: form(body({}, pending)) };
    fetch(launch.commit_url, request);
    pending = null;
  });
})();
`;

export const PLAYER_STYLES = `.player { display: grid; grid-template-columns: minmax(10rem, 16rem) 1fr; gap: 1rem; }
.player.single { grid-template-columns: 1fr; }
.player-toc ol { list-style: none; padding: 0; margin: 0; }
.player-toc li a { display: block; padding: 0.25rem 0.5rem; }
.player-toc .depth-1 { padding-left: 1rem; }
.player-toc .depth-2 { padding-left: 2rem; }
.player-toc .group { display: block; padding: 0.25rem 0.5rem; color: #555; }
.player-toc .locked { display: block; padding: 0.25rem 0.5rem; color: #555; }
.player-toc [aria-current="page"] { font-weight: bold; background: #eef; }
.player-toc a, .player-toc span { overflow-wrap: anywhere; }
.player-stage { min-width: 0; }
.player-stage iframe { box-sizing: border-box; width: 100%; height: 75vh; border: 1px solid #ccc; display: block; }
.player-nav { display: flex; justify-content: space-between; margin: 0.5rem 0; }
.player-status { min-height: 1.5em; color: #333; }
.player-preview { background: #fff7d6; padding: 0.5rem; }
@media (max-width: 40rem) {
  .player { grid-template-columns: 1fr; gap: 0.5rem; }
  .player-toc { max-height: 30vh; overflow-y: auto; border: 1px solid #ccc; }
  .player-toc li a, .player-toc .locked, .player-toc .group { padding: 0.5rem; }
  .player-stage iframe { height: 70vh; }
  .player-nav a { padding: 0.5rem 0; }
}
`;
