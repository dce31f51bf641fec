/* play.js - click-to-move and live updates on the game page; the page works without it. */
(function () {
	'use strict';

	var POLL_MS = 3000, POLL_HIDDEN_MS = 15000;
	/* Errors of the event stream in a row (each a failed reconnection) before the page polls instead. */
	var LIVE_ERRORS_MAX = 3;

	/* The page's parts, found again after every live update. */
	var ui = {};
	/* The legal moves: {move, places: [...], choice, partial}; while completing a partial move, its continuations. */
	var moves = [], legal = [];
	/* The places touched so far, and the move being previewed. */
	var touched = [], previewed = null;
	var pollTimer = null, busy = false;
	/* The game's event stream while it is open; its errors in a row. */
	var live = null, liveErrors = 0;

	function $(id) { return document.getElementById(id); }

	function readLegal() {
		var list = [], codes = document.querySelectorAll('#legal-list code[data-move]');
		for (var i = 0; i < codes.length; i++) {
			var c = codes[i], places = c.getAttribute('data-places');
			list.push({
				move: c.getAttribute('data-move'),
				places: places ? places.split('|') : [],
				choice: c.getAttribute('data-choice') || '',
				partial: c.getAttribute('data-partial') === '1'
			});
		}
		return list;
	}

	function startsWith(places, prefix) {
		if (places.length < prefix.length) return false;
		for (var i = 0; i < prefix.length; i++)
			if (places[i] !== prefix[i]) return false;
		return true;
	}

	function touchables() { return ui.board ? ui.board.querySelectorAll('[data-touch]') : []; }

	function forEachTouchable(f) {
		var all = touchables();
		for (var i = 0; i < all.length; i++) f(all[i], all[i].getAttribute('data-touch'));
	}

	function button(text, title, onclick) {
		var b = document.createElement('button');
		b.type = 'button';
		b.className = 'secondary';
		b.textContent = text;
		if (title) b.title = title;
		b.addEventListener('click', onclick);
		return b;
	}

	/* Show what the places touched so far allow: next places, choices, or a preview. */
	function render() {
		var candidates = moves.filter(function (m) { return m.places.length && startsWith(m.places, touched); });
		var next = {}, complete = [];
		candidates.forEach(function (m) {
			if (m.places.length > touched.length) next[m.places[touched.length]] = true;
			else if (touched.length) complete.push(m);
		});
		forEachTouchable(function (el, place) {
			var at = touched.indexOf(place);
			el.classList.toggle('selected', at >= 0);
			el.classList.toggle('target', touched.length > 0 && !!next[place]);
			el.classList.toggle('movable', touched.length === 0 && !!next[place]);
		});
		ui.choices.textContent = '';
		ui.preview.hidden = true;
		previewed = null;
		if (!touched.length) {
			ui.hint.textContent = legal !== moves ? 'Tap a highlighted square.' :
				legal.some(function (m) { return m.places.length; }) ?
				'Tap a piece to see where it can go, or type the move below.' : 'Choose a move below, or type it.';
			return;
		}
		if (complete.length === 1 && !Object.keys(next).length) return choose(complete[0]);
		if (complete.length) {
			ui.hint.textContent = Object.keys(next).length ? 'Choose one, or tap a highlighted square.' : 'Choose one:';
			complete.forEach(function (m) {
				var b = button(m.choice || m.move, m.move, function () { choose(m); });
				b.setAttribute('data-choice', m.move);
				ui.choices.appendChild(b);
			});
			return;
		}
		ui.hint.textContent = 'Tap a highlighted square, or the piece again to put it back.';
	}

	/* A move is picked: complete it (partial moves) or preview it for confirmation. */
	function choose(m) {
		if (m.partial) return continueMove(m);
		previewed = m;
		ui.choices.textContent = '';
		ui.previewMove.textContent = m.move;
		ui.previewChoice.textContent = m.choice ? '(' + m.choice + ')' : '';
		ui.preview.hidden = false;
		ui.hint.textContent = 'Check the move, then play it.';
		var confirm = ui.preview.querySelector('[data-action="confirm"]');
		if (confirm) confirm.focus();
	}

	/* Ask the server how a partial move (a release, say) can go on, then keep pointing. */
	function continueMove(m) {
		var token = ui.root.querySelector('input[name="seat"]').value;
		ui.hint.textContent = 'Looking up the choices…';
		fetch('/api/games/' + encodeURIComponent(ui.root.getAttribute('data-game')) +
			'/check?move=' + encodeURIComponent(m.move),
			{ headers: { Authorization: 'Bearer ' + token }, cache: 'no-store' })
			.then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
			.then(function (res) {
				if (!res.ok) throw new Error(res.body.error ? res.body.error.message : 'no answer');
				moves = res.body.continuations;
				touched = m.places.slice();
				if (!moves.length) return choose({ move: res.body.move, places: m.places, choice: '', partial: false });
				render();
				ui.hint.textContent = (moves[0].choice ? moves[0].choice + ': ' : '') + 'tap a highlighted square.';
			})
			.catch(function (e) { ui.hint.textContent = 'Could not continue the move: ' + e.message; });
	}

	function reset() {
		moves = legal;
		touched = [];
		render();
	}

	function touch(place) {
		if (busy) return;
		var last = touched.length ? touched[touched.length - 1] : null;
		if (place === last) {
			/* Tapping the last place again takes it back (within a partial move, back to its start). */
			touched.pop();
			if (moves !== legal && !moves.some(function (m) { return startsWith(m.places, touched) && m.places.length > touched.length; }))
				return reset();
			return render();
		}
		var further = touched.concat([place]);
		if (moves.some(function (m) { return startsWith(m.places, further); })) touched = further;
		else if (moves === legal && legal.some(function (m) { return m.places[0] === place; })) touched = [place];
		else if (moves === legal) touched = [];
		render();
	}

	function confirm() {
		if (!previewed || busy) return;
		busy = true;
		ui.input.value = previewed.move;
		ui.form.submit();
	}

	/* Arrow keys move between squares; Enter or Space touches one. */
	function keydown(e) {
		var el = e.target.closest ? e.target.closest('[data-touch]') : null;
		if (!el) return;
		if (e.key === 'Enter' || e.key === ' ') {
			e.preventDefault();
			touch(el.getAttribute('data-touch'));
			return;
		}
		var dr = { ArrowUp: -1, ArrowDown: 1 }[e.key] || 0, dc = { ArrowLeft: -1, ArrowRight: 1 }[e.key] || 0;
		if (!dr && !dc) return;
		e.preventDefault();
		var r = +el.getAttribute('data-r'), c = +el.getAttribute('data-c'), best = null, bestCost = 1e9;
		forEachTouchable(function (other) {
			if (!other.hasAttribute('data-r')) return;
			var or = +other.getAttribute('data-r') - r, oc = +other.getAttribute('data-c') - c;
			/* The nearest square in the arrow's direction, preferring the same line. */
			var along = dr ? or * dr : oc * dc, across = Math.abs(dr ? oc : or);
			if (along <= 0) return;
			var cost = along * 10 + across * 11;
			if (cost < bestCost) { bestCost = cost; best = other; }
		});
		if (best) focusSquare(best);
	}

	function focusSquare(el) {
		forEachTouchable(function (other) { other.setAttribute('tabindex', '-1'); });
		el.setAttribute('tabindex', '0');
		el.focus();
	}

	/* Show the picker: the board answers taps, clicks and keys when moves touch it; other moves get buttons. */
	function enablePicker() {
		ui.picker.hidden = false;
		ui.preview.querySelector('[data-action="confirm"]').addEventListener('click', confirm);
		ui.preview.querySelector('[data-action="cancel"]').addEventListener('click', reset);
		/* Moves that touch nothing on the board (an alliance, the default setup) get buttons. */
		legal.filter(function (m) { return !m.places.length; }).forEach(function (m) {
			var b = button(m.choice || m.move, m.move, function () { window.Rookery.preview(m); });
			b.setAttribute('data-choice', m.move);
			ui.actions.appendChild(b);
		});
		if (ui.board && legal.some(function (m) { return m.places.length; })) {
			enableBoard();
			render();
		} else {
			ui.hint.textContent = 'Choose a move below, or type it.';
		}
	}

	/* Make the drawn board answer taps, clicks and keys. */
	function enableBoard() {
		var first = null;
		forEachTouchable(function (el, place) {
			el.setAttribute('role', 'button');
			el.setAttribute('tabindex', '-1');
			el.setAttribute('aria-label', el.querySelector('title') ? el.querySelector('title').textContent : place);
			if (!first && legal.some(function (m) { return m.places[0] === place; })) first = el;
		});
		if (first) first.setAttribute('tabindex', '0');
		ui.board.addEventListener('click', function (e) {
			var el = e.target.closest ? e.target.closest('[data-touch]') : null;
			if (el) touch(el.getAttribute('data-touch'));
		});
		ui.board.addEventListener('keydown', keydown);
	}

	/*
	 * A seat without a client seed for the dice gets a random one on its first visit, sent
	 * through the page's own form (so the same-origin and form-token checks apply).
	 */
	function seedDice() {
		var form = $('seed-form');
		if (!form || form.getAttribute('data-auto') !== '1' || !window.crypto || !window.crypto.getRandomValues) return;
		form.setAttribute('data-auto', '');
		var bytes = new Uint8Array(16), seed = '', input = form.querySelector('input[name="client_seed"]');
		window.crypto.getRandomValues(bytes);
		for (var i = 0; i < bytes.length; i++) seed += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
		input.value = seed;
		fetch(form.getAttribute('action'), { method: 'POST', body: new URLSearchParams(new FormData(form)),
			redirect: 'manual', cache: 'no-store' })
			.then(function (r) {
				/* Success answers with a redirect to the seat's page, which is not followed. */
				if (r.type !== 'opaqueredirect' && !r.ok) throw new Error('refused');
				var shown = document.querySelector('#client-seeds [data-seat="' + form.getAttribute('data-seat') + '"]');
				if (!shown) return;
				var code = document.createElement('code');
				code.className = 'seed';
				code.setAttribute('data-seat', form.getAttribute('data-seat'));
				code.textContent = seed;
				shown.replaceWith(code);
			})
			.catch(function () { if (input.value === seed) input.value = ''; });
	}

	/* Deadlines come in UTC (<time datetime>): show them in the reader's own time. */
	function localTimes() {
		var times = document.querySelectorAll('#game time[datetime]');
		for (var i = 0; i < times.length; i++) {
			var t = new Date(times[i].getAttribute('datetime'));
			if (!isNaN(t.getTime()))
				times[i].textContent = t.toLocaleString(undefined, {
					weekday: 'short', year: 'numeric', month: 'short', day: 'numeric',
					hour: '2-digit', minute: '2-digit', timeZoneName: 'short'
				});
		}
	}

	function init() {
		ui = {
			root: $('game'), board: $('board'), picker: $('picker'), hint: $('pick-hint'),
			choices: $('choices'), preview: $('preview'), previewMove: $('preview-move'),
			previewChoice: $('preview-choice'), actions: $('actions'), form: $('move-form')
		};
		if (!ui.root) return;
		ui.input = ui.form ? ui.form.querySelector('input[name="move"]') : null;
		legal = moves = readLegal();
		touched = [];
		previewed = null;
		busy = false;
		if (ui.picker && ui.form && legal.length) enablePicker();
		seedDice();
		localTimes();
		schedulePoll();
		document.dispatchEvent(new CustomEvent('rookery:page'));
	}

	/* For the page's other scripts (the Cyvasse setup): preview a move they built, or withdraw the preview. */
	window.Rookery = {
		preview: function (m) { touched = []; moves = legal; render(); choose(m); },
		cancel: function () { if (previewed) reset(); }
	};

	/* The same text the page carries in data-state (see state_key in pages.c). */
	function stateOf(game) {
		return game.ply + '|' + game.status + '|' + (game.draw_offer || '') + '|' +
			(game.draw_offer ? game.draw_accepted_by.map(function (s) { return s + ','; }).join('') : '') +
			(game.clock ? game.clock.seats.map(function (s) { return '|' + (s.deadline || ''); }).join('') : '') +
			(game.open_seats ? '|o' + game.open_seats : '');
	}

	/* Follow the game: through its event stream when the browser has one that works, else by polling. */
	function schedulePoll() {
		clearTimeout(pollTimer);
		if (!ui.root || ui.root.getAttribute('data-state').indexOf('|over|') >= 0) {
			stopListening();
			return;
		}
		if (listen()) return;
		pollTimer = setTimeout(poll, document.hidden ? POLL_HIDDEN_MS : POLL_MS);
	}

	function stopListening() {
		if (live) live.close();
		live = null;
		document.documentElement.removeAttribute('data-live');
	}

	/*
	 * Open the game's event stream (GET /api/games/{id}/events) unless it is open: every
	 * event carries the public game, as GET /api/games/{id} gives it. The browser reconnects
	 * by itself after a drop, with Last-Event-ID. False when the page must poll.
	 */
	function listen() {
		if (live) return true;
		if (!window.EventSource || liveErrors >= LIVE_ERRORS_MAX) return false;
		live = new EventSource('/api/games/' + encodeURIComponent(ui.root.getAttribute('data-game')) + '/events');
		live.onopen = function () {
			liveErrors = 0;
			document.documentElement.setAttribute('data-live', 'open');
		};
		live.onerror = function () {
			document.documentElement.removeAttribute('data-live');
			/* Closed for good (refused), or failing again and again: poll instead. */
			if (live.readyState === EventSource.CLOSED || ++liveErrors >= LIVE_ERRORS_MAX) {
				liveErrors = LIVE_ERRORS_MAX;
				stopListening();
				schedulePoll();
			}
		};
		['state', 'move', 'action', 'result'].forEach(function (kind) {
			live.addEventListener(kind, function (e) {
				var game;
				try { game = JSON.parse(e.data); } catch (err) { return; }
				update(game).catch(function () { /* the next event, or a poll, tries again */ });
			});
		});
		return true;
	}

	/* This page's address for this viewer (the page may be the answer to a form, at the form's address). */
	function pageAddress() {
		var seat = ui.root.querySelector('input[name="seat"]');
		return '/games/' + encodeURIComponent(ui.root.getAttribute('data-game')) +
			(seat ? '?seat=' + encodeURIComponent(seat.value) : '');
	}

	/* A message being written in the old game part, and whom to, carried over to the new one; true while it has the focus. */
	function keepMessage(old, node) {
		var text = old.querySelector('#message-text'), to = old.querySelector('#message-to');
		var newText = node.querySelector('#message-text'), newTo = node.querySelector('#message-to');
		if (!text || !newText) return false;
		newText.value = text.value;
		if (to && newTo) newTo.value = to.value;
		return document.activeElement === text;
	}

	/*
	 * Tell screen readers what changed (#announce, a polite live region outside the replaced
	 * part): the last move in words when the ply moved on, a new draw offer, and the result
	 * when the game ended.
	 */
	function announce(old, node) {
		var region = $('announce'), said = [];
		if (!region) return;
		var ply = function (el) { return el.getAttribute('data-state').split('|')[0]; };
		var text = function (el, sel) { var e = el.querySelector(sel); return e ? e.textContent.replace(/\s+/g, ' ').trim() : ''; };
		var last = node.querySelector('p.last[data-said]');
		if (last && ply(old) !== ply(node)) said.push(last.getAttribute('data-said') + '.');
		['p.offer', 'p.result'].forEach(function (sel) {
			if (text(node, sel) && text(node, sel) !== text(old, sel)) said.push(text(node, sel));
		});
		if (said.length) region.textContent = said.join(' ');
	}

	/* Live updates: when game (the public JSON) differs from the page, fetch this page again and put its new game part in place. */
	function update(game) {
		if (!game || stateOf(game) === ui.root.getAttribute('data-state') || busy) return Promise.resolve();
		return fetch(pageAddress(), { cache: 'no-store' }).then(function (r) { return r.ok ? r.text() : null; })
			.then(function (html) {
				if (!html) return;
				var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('game');
				if (!fresh || busy) return;
				var node = document.importNode(fresh, true), writing = keepMessage(ui.root, node);
				announce(ui.root, node);
				ui.root.replaceWith(node);
				init();
				if (writing) node.querySelector('#message-text').focus();
			});
	}

	function poll() {
		fetch('/api/games/' + encodeURIComponent(ui.root.getAttribute('data-game')), { cache: 'no-store' })
			.then(function (r) { return r.ok ? r.json() : null; })
			.then(update)
			.catch(function () { /* the server may be restarting: try again later */ })
			.then(schedulePoll);
	}

	document.addEventListener('visibilitychange', function () {
		if (!document.hidden && ui.root && !live) { clearTimeout(pollTimer); poll(); }
	});
	init();
})();
