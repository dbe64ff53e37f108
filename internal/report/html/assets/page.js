// fragprof report: selection of blocks and the colour mode. The page works without
// this script (every block's panel is then listed); with it, clicking a block in a
// graph, a source line's block name or a link shows that block's panel only.
(function () {
  'use strict';
  var root = document.documentElement;
  root.classList.add('js');
  var data = JSON.parse(document.getElementById('fragprof-data').textContent);
  var blocks = {};
  data.functions.forEach(function (f) {
    f.blocks.forEach(function (b) { blocks[b.ref] = b; });
  });
  var empty = document.getElementById('panel-empty');
  var current = null;

  function each(sel, fn) { Array.prototype.forEach.call(document.querySelectorAll(sel), fn); }

  function clear() {
    if (!current) return;
    var d = document.getElementById('d-' + current);
    if (d) d.classList.remove('shown');
    var n = document.getElementById('n-' + current);
    if (n) n.classList.remove('selected');
    each('tr.sel', function (r) { r.classList.remove('sel'); });
    current = null;
    empty.classList.remove('hidden');
  }

  // select shows the panel of block ref ("f0-b1") and marks it in its graph and in
  // the source view.
  function select(ref, scroll) {
    var d = document.getElementById('d-' + ref);
    if (!d) return false;
    clear();
    current = ref;
    d.classList.add('shown');
    empty.classList.add('hidden');
    var n = document.getElementById('n-' + ref);
    if (n) {
      n.classList.add('selected');
      if (scroll && n.scrollIntoView) n.scrollIntoView({block: 'center'});
    }
    each('tr[data-blocks]', function (r) {
      if ((' ' + r.getAttribute('data-blocks') + ' ').indexOf(' ' + ref + ' ') >= 0) r.classList.add('sel');
    });
    var panel = document.getElementById('panel');
    if (panel) panel.scrollTop = 0;
    if (history.replaceState) history.replaceState(null, '', '#' + ref);
    return true;
  }

  document.addEventListener('click', function (ev) {
    var t = ev.target;
    if (!t || !t.closest) return;
    var chip = t.closest('[data-ref]');
    if (chip) {
      if (select(chip.getAttribute('data-ref'), true)) ev.preventDefault();
      return;
    }
    var node = t.closest('.blk');
    if (node && node.id && node.id.indexOf('n-') === 0) {
      ev.preventDefault();
      select(node.id.slice(2), false);
    }
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape') {
      clear();
      if (history.replaceState) history.replaceState(null, '', '#');
      return;
    }
    if (ev.key === 'Enter' && ev.target && ev.target.classList && ev.target.classList.contains('blk')) {
      select(ev.target.id.slice(2), false);
    }
  });

  // Colour mode (with a base): fill every block by its value or by its change.
  function textOn(heat) { return heat >= 0.6 ? '#ffffff' : '#000000'; }
  function recolour(mode) {
    Object.keys(blocks).forEach(function (ref) {
      var b = blocks[ref];
      var fill = b.color, text = textOn(b.heat);
      if (mode === 'diff') {
        fill = b.diff ? b.diff.color : '#ffffff';
        text = '#000000';
      }
      var n = document.getElementById('n-' + ref);
      if (!n) return;
      var shape = n.querySelector('path') || n.querySelector('polygon');
      if (shape) {
        shape.setAttribute('fill', fill);
        Array.prototype.forEach.call(n.querySelectorAll('text'), function (x) { x.setAttribute('fill', text); });
      } else {
        var sw = n.querySelector('.swatch');
        if (sw) sw.style.background = fill;
      }
    });
  }
  each('input[name=colour]', function (r) {
    r.addEventListener('change', function () { if (r.checked) recolour(r.value); });
  });

  function fromHash() {
    var h = decodeURIComponent(location.hash.replace(/^#/, ''));
    if (/^d-/.test(h)) h = h.slice(2);
    if (/^f\d+-b\d+$/.test(h)) select(h, true);
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
