/* setup.js - the Cyvasse hidden setup built by clicking: King's tile, tiles in slots, pieces on squares. */
(function () {
	'use strict';

	/*
	 * The setup geometry of the rules (rules/cyvasse.c; docs/rules/cyvasse.md, Terrain and tiles): each slot's
	 * squares TL TR BL BR per seat, the King's tile positions, the tiles'
	 * terrain per face. The server checks every setup; these tables only
	 * draw the draft.
	 */
	var SLOTS = {
		White: { L0: 'a4 b4 a3 b3', L1: 'c4 d4 c3 d3', L2: 'e4 f4 e3 f3', L3: 'a2 b2 a1 b1', L4: 'c2 d2 c1 d1',
			L5: 'e2 f2 e1 f1', R0: 'f4 g4 e3 f3', R1: 'h4 i4 g3 h3', R2: 'j4 k4 i3 j3', R3: 'd2 e2 c1 d1',
			R4: 'f2 g2 e1 f1', R5: 'h2 i2 g1 h1' },
		Black: { L0: 'k6 j6 j7 i7', L1: 'i6 h6 h7 g7', L2: 'g6 f6 f7 e7', L3: 'i8 h8 h9 g9', L4: 'g8 f8 f9 e9',
			L5: 'e8 d8 d9 c9', R0: 'f6 e6 f7 e7', R1: 'd6 c6 d7 c7', R2: 'b6 a6 b7 a7', R3: 'f8 e8 f9 e9',
			R4: 'd8 c8 d9 c9', R5: 'b8 a8 b9 a9' }
	};
	var KING_TILE = {
		K0: { slots: 'L0 L3 R0 R1 R2 R3 R4 R5', White: 'c4 d4 e4 c3 d3 c2', Black: 'i6 h6 g6 h7 g7 g8' },
		K1: { slots: 'L0 L1 L3 L4 R1 R2 R4 R5', White: 'e4 f4 g4 e3 f3 e2', Black: 'g6 f6 e6 f7 e7 e8' },
		K2: { slots: 'L0 L1 L2 L3 L4 L5 R2 R5', White: 'g4 h4 i4 g3 h3 g2', Black: 'e6 d6 c6 d7 c7 c8' }
	};
	var KING_NAMES = { K0: 'left', K1: 'centre', K2: 'right' };
	var TERRAIN = { 1: ['X..X', '.X..'], 2: ['~~..', '~...'], 3: ['X...', '~...'], 4: ['.~..', '.X..'],
		5: ['X...', '....'], 6: ['.~..', '....'], 7: ['....', '....'], 8: ['....', '....'] };
	var ORDER = 'RSLHECTDWK';
	var NAMES = { R: 'Rabble', S: 'Spears', L: 'Light Horse', H: 'Heavy Horse', E: 'Elephant', C: 'Crossbows',
		T: 'Trebuchet', D: 'Dragon', W: 'Tower', K: 'King' };
	var SVG = 'http://www.w3.org/2000/svg';

	var seat, draft, selected, ui;
	/* The draft survives a live update (the other seat's setup arriving) while it grows from the same start. */
	var kept = null;

	function words(s) { return s.split(' '); }
	function row(square) { return parseInt(square.slice(1), 10); }
	function mine(square) { return seat === 'White' ? row(square) <= 4 : row(square) >= 6; }
	function circle(kpos) { var t = words(KING_TILE[kpos][seat]); return t[t.length - 1]; }

	/* A setup line as a draft: {kpos, slots: {L0: {tile, rot}}, pieces: {square: letter}}; null if unreadable. */
	function parse(line) {
		var t = line.trim().split(/\s+/), d = { kpos: null, slots: {}, pieces: {} };
		if (t.shift().toLowerCase() !== 'setup') return null;
		d.kpos = (t.shift() || '').toUpperCase();
		if (!KING_TILE[d.kpos]) return null;
		for (var i = 0; i < t.length; i++) {
			var m = /^([LR][0-5])=([1-8])[AB](r?)$/i.exec(t[i]), g = /^([A-Z])=(.+)$/i.exec(t[i]);
			if (m) d.slots[m[1].toUpperCase()] = { tile: +m[2], rot: !!m[3] };
			else if (g) g[2].split(',').forEach(function (sq) { d.pieces[sq.toLowerCase()] = g[1].toUpperCase(); });
			else return null;
		}
		return d;
	}

	function line() {
		var parts = ['setup', draft.kpos];
		words(KING_TILE[draft.kpos].slots).forEach(function (slot) {
			var s = draft.slots[slot];
			parts.push(slot + '=' + s.tile + (slot[0] === 'L' ? 'A' : 'B') + (s.rot ? 'r' : ''));
		});
		ORDER.split('').forEach(function (letter) {
			var squares = Object.keys(draft.pieces).filter(function (sq) { return draft.pieces[sq] === letter; });
			squares.sort(function (a, b) { return row(a) - row(b) || (a < b ? -1 : 1); });
			if (squares.length) parts.push(letter + '=' + squares.join(','));
		});
		return parts.join(' ');
	}

	/* Terrain of every square of the seat's half under the draft's tiles. */
	function terrain() {
		var out = {};
		words(KING_TILE[draft.kpos].slots).forEach(function (slot) {
			var s = draft.slots[slot], face = TERRAIN[s.tile][slot[0] === 'L' ? 0 : 1];
			words(SLOTS[seat][slot]).forEach(function (sq, k) { out[sq] = face[s.rot ? 3 - k : k]; });
		});
		return out;
	}

	function pieceNode(letter) {
		var g = document.createElementNS(SVG, 'g'), c = document.createElementNS(SVG, 'circle'),
			t = document.createElementNS(SVG, 'text');
		g.setAttribute('class', 'pc draft side-' + seat);
		g.setAttribute('data-piece', letter);
		c.setAttribute('r', '14');
		t.setAttribute('class', 'glyph');
		t.textContent = letter;
		g.appendChild(c);
		g.appendChild(t);
		return g;
	}

	/* Draw the draft on the seat's half of the board, and its line under the controls. */
	function draw() {
		var land = terrain();
		var squares = ui.board.querySelectorAll('[data-square]');
		for (var i = 0; i < squares.length; i++) {
			var el = squares[i], sq = el.getAttribute('data-square');
			if (!mine(sq)) continue;
			var old = el.querySelector('.pc');
			if (old) old.remove();
			el.classList.toggle('mountain', land[sq] === 'X');
			el.classList.toggle('water', land[sq] === '~');
			el.classList.toggle('selected', sq === selected);
			var letter = draft.pieces[sq] ? (seat === 'White' ? draft.pieces[sq] : draft.pieces[sq].toLowerCase()) : '';
			if (letter) el.appendChild(pieceNode(letter));
			/* The square's tooltip as the server writes it ("e2: White K"), and its terrain. */
			var title = el.querySelector('title');
			if (title) title.textContent = sq + (letter ? ': ' + seat + ' ' + letter : '') +
				(land[sq] === 'X' ? ' (mountain)' : land[sq] === '~' ? ' (water)' : '');
		}
		ui.line.textContent = line();
		ui.kings.forEach(function (b) { b.setAttribute('aria-pressed', String(b.value === draft.kpos)); });
		/* The slot rows are built again only when the King's tile changes the slots: a select or a turn
		   button that was just used keeps the focus (a keyboard user goes on from there). */
		var used = KING_TILE[draft.kpos].slots;
		if (ui.slots.getAttribute('data-slots') !== used) {
			ui.slots.textContent = '';
			words(used).forEach(function (slot) { ui.slots.appendChild(slotRow(slot)); });
			ui.slots.setAttribute('data-slots', used);
		}
		words(used).forEach(function (slot) {
			var s = draft.slots[slot], sel = ui.slots.querySelector('select[data-slot="' + slot + '"]'),
				rot = ui.slots.querySelector('button[data-rotate="' + slot + '"]');
			sel.value = String(s.tile);
			rot.setAttribute('aria-pressed', String(s.rot));
			rot.textContent = s.rot ? 'turned' : 'turn';
		});
	}

	function slotRow(slot) {
		var li = document.createElement('li'), sel = document.createElement('select'),
			rot = document.createElement('button');
		li.textContent = slot + ' (' + SLOTS[seat][slot].replace(/ /g, ', ') + '): tile ';
		sel.setAttribute('aria-label', 'tile in slot ' + slot);
		sel.setAttribute('data-slot', slot);
		for (var n = 1; n <= 8; n++) {
			var o = document.createElement('option');
			o.value = String(n);
			o.textContent = String(n);
			sel.appendChild(o);
		}
		sel.addEventListener('change', function () { setTile(slot, +sel.value); });
		rot.type = 'button';
		rot.className = 'secondary';
		rot.setAttribute('data-rotate', slot);
		rot.title = 'Turn the tile in ' + slot + ' half a circle';
		rot.addEventListener('click', function () { draft.slots[slot].rot = !draft.slots[slot].rot; changed(); });
		li.appendChild(sel);
		li.appendChild(document.createTextNode(' '));
		li.appendChild(rot);
		return li;
	}

	/* A tile goes to a slot; the tile that was there goes where this one was (each tile is used once). */
	function setTile(slot, tile) {
		var from = Object.keys(draft.slots).filter(function (s) { return draft.slots[s].tile === tile; })[0];
		if (from && from !== slot) draft.slots[from].tile = draft.slots[slot].tile;
		draft.slots[slot].tile = tile;
		changed();
	}

	/* The King's tile moves: the slots it leaves free take the tiles of the slots it covers. */
	function setKing(kpos) {
		var before = words(KING_TILE[draft.kpos].slots), after = words(KING_TILE[kpos].slots);
		var loose = before.filter(function (s) { return after.indexOf(s) < 0; });
		var slots = {};
		after.forEach(function (s) { slots[s] = draft.slots[s] || draft.slots[loose.shift()]; });
		var oldCircle = circle(draft.kpos), newCircle;
		draft.kpos = kpos;
		draft.slots = slots;
		newCircle = circle(kpos);
		/* The King stands on the circle; whatever stood there takes the King's old square. */
		var displaced = draft.pieces[newCircle];
		delete draft.pieces[oldCircle];
		if (displaced) draft.pieces[oldCircle] = displaced;
		draft.pieces[newCircle] = 'K';
		changed();
	}

	/* A changed draft withdraws a preview of the line checked before: confirming must never send an older setup. */
	function withdraw() {
		if (window.Rookery.cancel) window.Rookery.cancel();
	}

	function changed() {
		selected = null;
		ui.message.textContent = '';
		withdraw();
		draw();
	}

	/* Tap a piece of the draft, then another square of the half: it moves there, or the two swap. */
	function click(e) {
		var el = e.target.closest ? e.target.closest('[data-square]') : null;
		if (!el || !draft) return;
		var sq = el.getAttribute('data-square');
		if (!mine(sq)) return;
		if (!selected) {
			if (!draft.pieces[sq]) return;
			if (draft.pieces[sq] === 'K') {
				ui.message.textContent = 'The King stays on the circle of its tile: move the King\'s tile instead.';
				return;
			}
			selected = sq;
		} else if (sq === selected) {
			selected = null;
		} else if (draft.pieces[sq] === 'K') {
			ui.message.textContent = 'The King stays on the circle of its tile.';
			return;
		} else {
			var moving = draft.pieces[selected];
			if (draft.pieces[sq]) draft.pieces[selected] = draft.pieces[sq];
			else delete draft.pieces[selected];
			draft.pieces[sq] = moving;
			selected = null;
			withdraw();
		}
		ui.message.textContent = selected ? NAMES[draft.pieces[selected]] + ' on ' + selected + ': tap where it goes.' : '';
		draw();
	}

	/* Ask the server whether the setup is legal, then preview it for confirmation. */
	function check() {
		var token = ui.root.querySelector('input[name="seat"]').value, text = line(), asked = draft;
		withdraw();
		selected = null;
		draw();
		ui.message.textContent = 'Checking…';
		fetch('/api/games/' + encodeURIComponent(ui.root.getAttribute('data-game')) + '/check?move=' +
			encodeURIComponent(text), { headers: { Authorization: 'Bearer ' + token }, cache: 'no-store' })
			.then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
			.then(function (res) {
				/* The draft changed (or the page moved on) while the server was asked: this answer is old. */
				if (draft !== asked || line() !== text) return;
				if (!res.ok) {
					ui.message.textContent = res.body.error ? res.body.error.message : 'The setup was not accepted.';
					return;
				}
				ui.message.textContent = '';
				window.Rookery.preview({ move: res.body.move, places: [], choice: 'your setup', partial: false });
			})
			.catch(function (e) { if (draft === asked) ui.message.textContent = 'Could not check the setup: ' + e.message; });
	}

	function button(text, attrs, onclick) {
		var b = document.createElement('button');
		b.type = 'button';
		b.textContent = text;
		for (var k in attrs) b.setAttribute(k, attrs[k]);
		b.addEventListener('click', onclick);
		return b;
	}

	/* The draft starts from the seat's own latest setup, else the default one. */
	function startingLine() {
		var own = document.querySelectorAll('ol.moves li.mine code'), i;
		for (i = own.length - 1; i >= 0; i--)
			if (/^setup /i.test(own[i].textContent)) return own[i].textContent;
		var def = document.querySelector('#legal-list code[data-move^="setup "]');
		return def ? def.getAttribute('data-move') : null;
	}

	function init() {
		var panel = document.getElementById('setup-editor'), start;
		draft = null;
		if (!panel || !window.Rookery) return;
		seat = panel.getAttribute('data-seat');
		start = startingLine();
		if (!SLOTS[seat] || !start) return;
		var key = document.getElementById('game').getAttribute('data-game') + ' ' + seat + ' ' + start;
		draft = kept && kept.key === key ? kept.draft : parse(start);
		if (!draft) return;
		kept = { key: key, draft: draft };
		selected = null;
		ui = { root: document.getElementById('game'), board: document.getElementById('board'),
			line: panel.querySelector('.setup-line'), slots: panel.querySelector('.setup-slots'),
			message: panel.querySelector('.setup-message'), kings: [] };
		var kings = panel.querySelector('.setup-kings');
		Object.keys(KING_TILE).forEach(function (k) {
			var b = button(KING_NAMES[k], { value: k, 'class': 'secondary', 'data-king': k }, function () { setKing(k); });
			ui.kings.push(b);
			kings.appendChild(b);
		});
		panel.querySelector('.setup-actions').appendChild(
			button('Use this setup', { 'data-action': 'check-setup' }, check));
		ui.board.addEventListener('click', click);
		panel.hidden = false;
		draw();
	}

	document.addEventListener('rookery:page', init);
})();
