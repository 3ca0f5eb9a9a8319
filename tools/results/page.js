/*
 * page.js — draws a nanoBench-EFI results page from the JSON in #nb-data
 * (tools/results/nb_html.py puts both, and uPlot, into the page).
 *
 * One run or two (nb_compare): every section shows each run, a missing
 * benchmark or event is shown as missing, never dropped. Sections: the
 * machine, the platform report, the benchmark x event table (sortable),
 * the -verbose measurement distributions, the top-down metrics as stacked
 * bars, MICA's analyses, the cycle-by-cycle charts (step/linear toggle).
 *
 * For the browser tests the page writes into #nb-page's data- attributes:
 * data-charts (charts drawn), data-traces (series in them), data-kinds
 * (charts per kind, JSON), data-errors (console errors so far) and
 * data-draw-ms (performance.now() when the last chart was drawn).
 * "#show=SECTION" in the address shows that section only (screenshots);
 * "#sort=N" and "#click=toggle" click a column head or the step/linear
 * buttons once drawn (the tests' clicks).
 */
(function () {
    "use strict";
    var tStart = performance.now();
    var D = JSON.parse(document.getElementById("nb-data").textContent);
    var runs = D.runs;
    var two = runs.length === 2;
    var root = document.getElementById("nb-page");
    var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf"];
    var created = 0, drawn = 0, traces = 0, kinds = {};

    function esc(s) {
        return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
    }
    function el(tag, cls, text) {
        var e = document.createElement(tag);
        if (cls) e.className = cls;
        if (text !== undefined) e.textContent = text;
        return e;
    }
    function color(i) { return COLORS[i % COLORS.length]; }
    function fmt(v) {
        if (v === null || v === undefined || isNaN(v)) return "";
        var a = Math.abs(v);
        if (a !== 0 && (a < 0.01 || a >= 1e7)) return v.toExponential(3);
        return (Math.round(v * 100) / 100).toFixed(2);
    }
    function runLabel(r) { return runs[r].label; }
    function finish() {
        root.setAttribute("data-charts", String(drawn));
        root.setAttribute("data-traces", String(traces));
        root.setAttribute("data-kinds", JSON.stringify(kinds));
        root.setAttribute("data-errors", String(window.nbErrors ? window.nbErrors.length : 0));
        root.setAttribute("data-error-text", window.nbErrors ? window.nbErrors.join(" | ") : "");
        root.setAttribute("data-draw-ms", performance.now().toFixed(1));
        root.setAttribute("data-script-ms", tStart.toFixed(1));
    }

    var sections = {};
    function section(id, title, note) {
        var s = el("section", "nb-section");
        s.id = id;
        s.appendChild(el("h2", null, title));
        if (note) s.appendChild(el("p", "nb-note", note));
        root.appendChild(s);
        sections[id] = s;
        return s;
    }

    /* One uPlot chart of `kind` in `parent`; counts it and its series. */
    function chart(parent, kind, title, opts, data) {
        var box = el("div", "nb-chart");
        box.setAttribute("data-kind", kind);
        parent.appendChild(box);
        opts.title = title;
        opts.width = opts.width || 460;
        opts.height = opts.height || 220;
        var t0 = performance.now();
        opts.hooks = { draw: [function (u) { if (!u.nbDrawn) { u.nbDrawn = true; drawn++; box.setAttribute("data-ms", (performance.now() - t0).toFixed(1)); } finish(); }] };
        created++;
        traces += opts.series.length - 1;
        kinds[kind] = (kinds[kind] || 0) + 1;
        box.setAttribute("data-traces", String(opts.series.length - 1));
        return new uPlot(opts, data, box);
    }

    /* Options for a chart over categories 0..n-1 named by `labels`. */
    function categoryOpts(labels, yLabel) {
        var idx = labels.map(function (_, i) { return i; });
        return {
            scales: { x: { time: false, range: [-0.5, labels.length - 0.5] },
                      y: { range: function (u, min, max) { return [Math.min(0, min), max > 0 ? max * 1.08 : 1]; } } },
            axes: [
                { splits: function () { return idx; }, values: function (u, s) { return s.map(function (i) { return labels[i] === undefined ? "" : labels[i]; }); },
                  rotate: labels.length > 6 ? -45 : 0, size: labels.length > 6 ? 70 : 40, gap: 4 },
                { label: yLabel, size: 60 }
            ],
            series: [{ label: "", value: function (u, i) { return i === null ? "" : labels[i]; } }],
            legend: { live: true }
        };
    }
    function barSeries(label, i, nRuns, r) {
        var align = nRuns === 2 ? (r === 0 ? -1 : 1) : 0;
        return { label: label, stroke: color(i), fill: color(i) + "cc", width: 1,
                 paths: uPlot.paths.bars({ size: [nRuns === 2 ? 0.4 : 0.7, 60], align: align }), points: { show: false } };
    }

    /* --- the machine --- */
    var head = el("header", "nb-head");
    head.appendChild(el("h1", null, D.title));
    runs.forEach(function (run, r) {
        var d = el("div", "nb-run");
        d.appendChild(el("h3", null, (two ? (r === 0 ? "A: " : "B: ") : "") + run.label));
        d.appendChild(el("p", "nb-source", run.source));
        var pre = el("pre", "nb-machine", run.machine.join("\n"));
        d.appendChild(pre);
        head.appendChild(d);
    });
    root.appendChild(head);

    /* --- the platform report --- */
    (function () {
        var keys = [], vals = runs.map(function () { return {}; });
        runs.forEach(function (run, r) {
            run.platform.forEach(function (kv) {
                if (!(kv[0] in vals[0]) && !(kv[0] in vals[1 % runs.length]) && keys.indexOf(kv[0]) < 0) keys.push(kv[0]);
                vals[r][kv[0]] = kv[1];
            });
        });
        var s = section("platform", "Platform report", keys.length ? null : "No platform rows in this run.");
        if (!keys.length) return;
        var det = el("details");
        det.open = two || /show=platform/.test(location.hash);
        var brief = ["cpu.brand", "tsc.hz", "firmware.vendor", "smbios.system.product"].filter(function (k) { return k in vals[0]; })
            .map(function (k) { return k + " = " + vals[0][k]; }).join("; ");
        det.appendChild(el("summary", null, keys.length + " facts" + (two ? " (differences marked)" : "") + (brief ? ": " + brief : "")));
        var html = "<table class='nb-table'><thead><tr><th>key</th>" +
            runs.map(function (run) { return "<th>" + esc(run.label) + "</th>"; }).join("") + "</tr></thead><tbody>";
        keys.forEach(function (k) {
            var differ = two && vals[0][k] !== vals[1][k];
            html += "<tr" + (differ ? " class='nb-differ'" : "") + "><td>" + esc(k) + "</td>" +
                vals.map(function (v) { return k in v ? "<td>" + esc(v[k]) + "</td>" : "<td class='nb-missing'>missing</td>"; }).join("") + "</tr>";
        });
        det.insertAdjacentHTML("beforeend", html + "</tbody></table>");
        s.appendChild(det);
    })();

    /* --- every benchmark x event --- */
    var benchNames = [], benchIndex = {};
    runs.forEach(function (run, r) {
        run.benchmarks.forEach(function (b) {
            if (!(b.name in benchIndex)) { benchIndex[b.name] = benchNames.length; benchNames.push(b.name); }
        });
    });
    function benchOf(r, name) {
        var m = runs[r]._map;
        if (!m) { m = runs[r]._map = {}; runs[r].benchmarks.forEach(function (b) { m[b.name] = b; }); }
        return m[name];
    }

    (function () {
        var rows = [];
        benchNames.forEach(function (name) {
            var events = [], seen = {};
            runs.forEach(function (run, r) {
                var b = benchOf(r, name);
                if (!b) return;
                if (b.error !== null && !seen.error) { seen.error = 1; events.push("error"); }
                b.events.forEach(function (e) { if (!seen[e.event]) { seen[e.event] = 1; events.push(e.event); } });
            });
            if (!events.length) events.push("");
            events.forEach(function (ev) {
                var row = { bench: name, event: ev, cells: [] };
                runs.forEach(function (run, r) {
                    var b = benchOf(r, name), cell = null;
                    if (b && ev === "error") cell = b.error === null ? null : { text: b.error, value: null, error: true };
                    else if (b) b.events.forEach(function (e) { if (e.event === ev) cell = e; });
                    row.cells.push({ missing: !b ? "benchmark missing" : (!cell ? "event missing" : null), e: cell });
                });
                if (two) {
                    var a = row.cells[0].e, c = row.cells[1].e;
                    row.ratio = a && c && a.value !== null && c.value !== null && a.value !== 0 ? c.value / a.value : null;
                }
                rows.push(row);
            });
        });
        var s = section("table", "Results", rows.length + " rows; click a column to sort" +
            (two ? "; ratio = B / A" : ""));
        var cols = [{ name: "benchmark", key: function (r) { return r.bench; } },
                    { name: "event", key: function (r) { return r.event; } }];
        runs.forEach(function (run, i) {
            var p = two ? (i === 0 ? "A " : "B ") : "";
            cols.push({ name: p + "value", key: function (r) { var e = r.cells[i].e; return e ? (e.value !== null ? e.value : e.text) : null; } });
            cols.push({ name: p + "min", key: function (r) { var e = r.cells[i].e; return e ? e.min : null; } });
            cols.push({ name: p + "max", key: function (r) { var e = r.cells[i].e; return e ? e.max : null; } });
        });
        if (two) cols.push({ name: "B / A", key: function (r) { return r.ratio; } });
        var table = el("table", "nb-table nb-results");
        var thead = "<thead><tr>" + cols.map(function (c, i) { return "<th data-col='" + i + "'>" + esc(c.name) + "</th>"; }).join("") + "</tr></thead>";
        table.innerHTML = thead + "<tbody></tbody>";
        var tbody = table.querySelector("tbody");
        function render() {
            var out = [];
            for (var k = 0; k < rows.length; k++) {
                var r = rows[k], h = "<tr><td>" + esc(r.bench) + "</td><td>" + esc(r.event) + "</td>";
                for (var i = 0; i < r.cells.length; i++) {
                    var c = r.cells[i];
                    if (c.missing) { h += "<td class='nb-missing' colspan='3'>" + c.missing + "</td>"; continue; }
                    var e = c.e;
                    if (e.value === null) h += "<td class='" + (e.error ? "nb-error" : "nb-text") + "' colspan='3'>" + esc(e.text) + "</td>";
                    else h += "<td class='nb-num'>" + fmt(e.value) + "</td><td class='nb-num'>" + fmt(e.min) +
                              "</td><td class='nb-num'>" + fmt(e.max) + "</td>";
                }
                if (two) h += "<td class='nb-num" + (r.ratio !== null && Math.abs(r.ratio - 1) > 0.05 ? " nb-differ" : "") + "'>" +
                              (r.ratio === null ? "" : r.ratio.toFixed(3)) + "</td>";
                out.push(h + "</tr>");
            }
            tbody.innerHTML = out.join("");
        }
        var sortCol = -1, sortDir = 1;
        table.querySelector("thead").addEventListener("click", function (ev) {
            var th = ev.target.closest("th");
            if (!th) return;
            var c = +th.getAttribute("data-col");
            sortDir = c === sortCol ? -sortDir : 1;
            sortCol = c;
            var key = cols[c].key;
            // Numbers, then text (errors, n/a), then missing cells; the direction orders within each kind.
            function rank(v) { return v === null || v === undefined ? 2 : typeof v === "number" ? 0 : 1; }
            rows.sort(function (x, y) {
                var a = key(x), b = key(y), ra = rank(a), rb = rank(b);
                if (ra !== rb) return ra - rb;
                if (ra === 2) return 0;
                if (ra === 0) return (a - b) * sortDir;
                return String(a).localeCompare(String(b), undefined, { numeric: true }) * sortDir;
            });
            Array.prototype.forEach.call(table.querySelectorAll("th"), function (t) { t.removeAttribute("data-sort"); });
            th.setAttribute("data-sort", sortDir > 0 ? "asc" : "desc");
            render();
        });
        render();
        // A long table is laid out only where it is on screen (content-visibility), so
        // a 1000-benchmark run's 8000 rows do not hold up the charts.
        var wrap = el("div", rows.length > 200 ? "nb-long" : null);
        wrap.appendChild(table);
        s.appendChild(wrap);
        root.setAttribute("data-table-ms", performance.now().toFixed(1));
    })();

    /* --- -verbose: each measurement, main run minus base run, per copy --- */
    var EAGER = 60; /* more benchmarks than this: their own charts are drawn when opened */
    (function () {
        var with_ = benchNames.filter(function (n) {
            return runs.some(function (run, r) { var b = benchOf(r, n); return b && Object.keys(b.verbose).length; });
        });
        if (!with_.length) return;
        var s = section("distributions", "Measurement distributions (-verbose)",
            "Each point is one measurement: the main run's value minus the base run's, divided as the result " +
            "is (copies x loop iterations), so the points scatter around the printed value.");
        // Overview: every measurement of every benchmark as its deviation from the benchmark's median.
        var evs = [], evIndex = {};
        runs.forEach(function (run, r) {
            with_.forEach(function (name) {
                var b = benchOf(r, name);
                if (!b) return;
                Object.keys(b.verbose).forEach(function (ev) {
                    var key = (two ? (r === 0 ? "A " : "B ") : "") + ev;
                    if (!(key in evIndex)) { evIndex[key] = evs.length; evs.push(key); }
                });
            });
        });
        var xs = [], ys = evs.map(function () { return []; });
        with_.forEach(function (name, bi) {
            var cols = [];
            runs.forEach(function (run, r) {
                var b = benchOf(r, name);
                if (!b) return;
                Object.keys(b.verbose).forEach(function (ev) {
                    cols.push([evIndex[(two ? (r === 0 ? "A " : "B ") : "") + ev], b.verbose[ev]]);
                });
            });
            var n = 0;
            cols.forEach(function (c) { n = Math.max(n, c[1].length); });
            for (var i = 0; i < n; i++) {
                xs.push(bi - 0.35 + 0.7 * (n > 1 ? i / (n - 1) : 0.5));
                for (var e = 0; e < evs.length; e++) ys[e].push(null);
            }
            cols.forEach(function (c) {
                var v = c[1].slice().sort(function (a, b) { return a - b; });
                var med = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
                var col = ys[c[0]], base = xs.length - n;
                c[1].forEach(function (x, i) { col[base + i] = med === 0 ? (x === 0 ? 0 : null) : 100 * (x / med - 1); });
            });
        });
        var names = with_;
        chart(s, "noise", "Noise: each measurement's deviation from its benchmark's median", {
            width: Math.max(460, Math.min(1200, 120 + names.length * 40)), height: 260,
            scales: { x: { time: false, range: [-0.5, names.length - 0.5] } },
            axes: [{ label: "benchmark", values: function (u, sp) { return sp.map(function (x) { return Number.isInteger(x) && names[x] !== undefined ? names[x] : ""; }); } },
                   { label: "% from the median", size: 60 }],
            series: [{ label: "benchmark", value: function (u, x) { return x === null ? "" : names[Math.round(x)]; } }].concat(evs.map(function (ev, k) {
                return { label: ev, stroke: color(k), fill: color(k), paths: function () { return null; }, points: { show: true, size: 5, fill: color(k) } };
            }))
        }, [xs].concat(ys));

        function drawOne(parent, name) {
            var series = [{ label: "measurement" }], cols = [], n = 0, k = 0;
            runs.forEach(function (run, r) {
                var b = benchOf(r, name);
                if (!b) return;
                Object.keys(b.verbose).forEach(function (ev) {
                    var v = b.verbose[ev];
                    n = Math.max(n, v.length);
                    cols.push(v);
                    series.push({ label: (two ? (r === 0 ? "A " : "B ") : "") + ev, stroke: color(k), fill: color(k),
                                  paths: function () { return null; }, points: { show: true, size: 6, fill: color(k) } });
                    k++;
                });
            });
            var xs = [];
            for (var i = 0; i < n; i++) xs.push(i);
            var data = [xs].concat(cols.map(function (v) { var o = v.slice(); while (o.length < n) o.push(null); return o; }));
            chart(parent, "distribution", name, {
                scales: { x: { time: false, range: [-0.5, n - 0.5] } },
                axes: [{ label: "measurement" }, { size: 60 }],
                series: series
            }, data);
        }
        var grid = el("div", "nb-grid");
        s.appendChild(grid);
        if (with_.length <= EAGER) {
            with_.forEach(function (name) { drawOne(grid, name); });
            return;
        }
        s.insertBefore(el("p", "nb-note", with_.length + " benchmarks: open one to draw its measurements."), grid);
        with_.forEach(function (name) {
            var d = el("details", "nb-lazy");
            d.appendChild(el("summary", null, name));
            d.addEventListener("toggle", function () {
                if (d.open && !d.getAttribute("data-drawn")) { d.setAttribute("data-drawn", "1"); drawOne(d, name); }
            });
            grid.appendChild(d);
        });
    })();

    /* --- derived metrics: top-down level 1 as stacked bars --- */
    (function () {
        var TD = ["TD_RETIRING", "TD_BAD_SPECULATION", "TD_FRONTEND_BOUND", "TD_BACKEND_BOUND"];
        var labels = [], parts = TD.map(function () { return []; });
        benchNames.forEach(function (name) {
            runs.forEach(function (run, r) {
                var b = benchOf(r, name);
                if (!b) return;
                var v = TD.map(function (t) {
                    var x = null;
                    b.events.forEach(function (e) { if (e.event === "metric." + t || e.event === t) x = e.value; });
                    return x;
                });
                if (v.every(function (x) { return x === null; })) return;
                labels.push(name + (two ? (r === 0 ? " (A)" : " (B)") : ""));
                v.forEach(function (x, i) { parts[i].push(x); });
            });
        });
        var metricRows = 0;
        runs.forEach(function (run) { run.benchmarks.forEach(function (b) { b.events.forEach(function (e) { if (/^metric\./.test(e.event)) metricRows++; }); }); });
        if (!labels.length && !metricRows) return;
        var s = section("metrics", "Derived metrics",
            "Every metric.* value is in the results table. Top-down level 1 (fractions of the issue slots), stacked per benchmark:");
        if (!labels.length) { s.appendChild(el("p", "nb-note", "No top-down values in this run (-metrics topdown).")); return; }
        // uPlot draws series in order: the cumulative sums, largest first, so each slice shows.
        var cum = parts.map(function () { return []; });
        for (var j = 0; j < labels.length; j++) {
            var acc = 0;
            for (var i = 0; i < TD.length; i++) { acc += parts[i][j] || 0; cum[i].push(parts[i][j] === null ? null : acc); }
        }
        var opts = categoryOpts(labels, "fraction of slots");
        opts.width = Math.max(460, Math.min(1200, 80 + labels.length * 60));
        opts.height = 260;
        opts.scales.y = { range: [0, 1] };
        var data = [labels.map(function (_, i) { return i; })];
        for (var t = TD.length - 1; t >= 0; t--) {
            (function (t) {
                var sr = barSeries(TD[t], t, 1, 0);
                sr.value = function (u, v, si, di) { return di === null || parts[t][di] === null ? "" : fmt(parts[t][di]); };
                opts.series.push(sr);
                data.push(cum[t]);
            })(t);
        }
        chart(s, "topdown", "Top-down level 1", opts, data);
    })();

    /* --- MICA --- */
    (function () {
        var with_ = benchNames.filter(function (n) {
            return runs.some(function (run, r) { var b = benchOf(r, n); return b && Object.keys(b.mica).length; });
        });
        if (!with_.length) return;
        var s = section("mica", "MICA analyses", "From run-NNNN-mica.csv (tools/nb_mica on each -mica trace).");
        var MIX = ["mem_read", "mem_write", "control", "arith", "fp", "stack", "shift", "string", "sse", "system", "nop", "other"];
        var W = [32, 64, 128, 256];
        var STRIDE = [0, 8, 64, 512, 4096, 32768, 262144];
        with_.forEach(function (name) {
            var box = el("div", "nb-bench");
            box.appendChild(el("h3", null, name));
            var grid = el("div", "nb-grid");
            box.appendChild(grid);
            s.appendChild(box);
            var have = runs.map(function (run, r) { var b = benchOf(r, name); return b ? b.mica : {}; });
            function runsWith(field) { return have.map(function (m, r) { return field in m ? r : -1; }).filter(function (r) { return r >= 0; }); }
            function bars(kind, title, labels, yLabel, valueOf, field) {
                var rs = runsWith(field);
                if (!rs.length) return;
                var opts = categoryOpts(labels, yLabel), data = [labels.map(function (_, i) { return i; })];
                rs.forEach(function (r, k) {
                    opts.series.push(barSeries(two ? runLabel(r) : yLabel, r, rs.length, k));
                    data.push(labels.map(function (_, i) { return valueOf(have[r], i); }));
                });
                chart(grid, kind, name + ": " + title, opts, data);
            }
            bars("mica-mix", "instruction mix", MIX, "% of instructions", function (m, i) {
                return m["itypes." + MIX[i]] === undefined || !m["itypes.instructions"] ? null : 100 * m["itypes." + MIX[i]] / m["itypes.instructions"];
            }, "itypes.instructions");
            bars("mica-ilp", "ILP per window size", W.map(function (w) { return "W" + w; }), "instructions / cycle", function (m, i) {
                var c = m["ilp.cycles_" + W[i]];
                return c ? m["ilp.instructions"] / c : null;
            }, "ilp.instructions");
            var RD = [];
            RD.push("cold");
            for (var k = 0; k <= 18; k++) RD.push(k === 0 ? "<2" : k === 18 ? ">=256K" : k >= 10 ? (1 << (k - 10)) + "K+" : (1 << k) + "+");
            bars("mica-reuse", "reuse distance (64-byte blocks)", RD, "% of accesses", function (m, i) {
                var a = m["memstackdist.accesses"], v = i === 0 ? m["memstackdist.cold"] : m["memstackdist.b" + (i - 1)];
                return !a || v === undefined ? null : 100 * v / a;
            }, "memstackdist.accesses");
            // Strides: MICA's counts are cumulative (stride <= x); one line per kind and run.
            var rs = runsWith("stride.reads");
            if (rs.length) {
                var labels = ["0", "8", "64", "512", "4K", "32K", "256K"];
                var opts = categoryOpts(labels, "% of accesses with stride <= x"), data = [labels.map(function (_, i) { return i; })];
                var kinds_ = [["read_local", "reads"], ["read_global", "reads"], ["write_local", "writes"], ["write_global", "writes"]];
                var c = 0;
                rs.forEach(function (r) {
                    kinds_.forEach(function (kd) {
                        var m = have[r], total = m["stride." + kd[1]];
                        opts.series.push({ label: (two ? runLabel(r) + " " : "") + kd[0].replace("_", " "), stroke: color(c), width: 2,
                                           points: { show: true, size: 5 }, dash: r === 1 ? [6, 3] : undefined });
                        data.push(STRIDE.map(function (x) { var v = m["stride." + kd[0] + "_le_" + x]; return !total || v === undefined ? null : 100 * v / total; }));
                        c++;
                    });
                });
                opts.scales.y = { range: [0, 100] };
                opts.axes[0].label = "stride (bytes)";
                chart(grid, "mica-stride", name + ": memory access strides", opts, data);
            }
            var FP = ["data_blocks", "data_pages", "instr_blocks", "instr_pages"];
            bars("mica-footprint", "memory footprint", ["data blocks", "data pages", "code blocks", "code pages"], "distinct blocks / pages",
                function (m, i) { var v = m["memfootprint." + FP[i]]; return v === undefined ? null : v; }, "memfootprint.data_blocks");
        });
    })();

    /* --- cycle by cycle --- */
    (function () {
        var with_ = benchNames.filter(function (n) {
            return runs.some(function (run, r) { var b = benchOf(r, n); return b && b.cycles; });
        });
        if (!with_.length) return;
        var s = section("cycles", "Cycle by cycle (-cycle_by_cycle)",
            "What each event counted in each cycle of the benchmark (run-NNNN-<name>-cycles.csv).");
        with_.forEach(function (name) {
            var box = el("div", "nb-bench");
            var bar = el("div", "nb-toolbar");
            var btn = el("button", "nb-toggle", "linear");
            btn.setAttribute("data-mode", "step");
            bar.appendChild(el("span", null, "lines: "));
            bar.appendChild(btn);
            box.appendChild(bar);
            var holder = el("div");
            box.appendChild(holder);
            s.appendChild(box);
            var xs = [], cols = [], labels = [];
            runs.forEach(function (run, r) {
                var b = benchOf(r, name);
                if (!b || !b.cycles) return;
                b.cycles.cycles.forEach(function (c) { if (xs.indexOf(c) < 0) xs.push(c); });
            });
            xs.sort(function (a, b) { return a - b; });
            runs.forEach(function (run, r) {
                var b = benchOf(r, name);
                if (!b || !b.cycles) return;
                var at = {};
                b.cycles.cycles.forEach(function (c, i) { at[c] = i; });
                b.cycles.events.forEach(function (ev, e) {
                    labels.push((two ? (r === 0 ? "A " : "B ") : "") + ev);
                    cols.push(xs.map(function (c) { return c in at ? b.cycles.values[e][at[c]] : null; }));
                });
            });
            var plot = null;
            function draw(mode) {
                if (plot) { plot.destroy(); created--; traces -= labels.length; kinds.cycles--; drawn--; }
                holder.innerHTML = "";
                var paths = mode === "step" ? uPlot.paths.stepped({ align: 1 }) : uPlot.paths.linear();
                var series = [{ label: "cycle" }].concat(labels.map(function (l, i) {
                    return { label: l, stroke: color(i), width: 2, paths: paths, points: { show: false } };
                }));
                plot = chart(holder, "cycles", name, {
                    width: Math.max(460, Math.min(1200, 200 + xs.length * 12)), height: 300,
                    // Steps: a cycle's count holds from its cycle to the next, so the last one shows too.
                    scales: { x: { time: false, range: [xs[0], xs[xs.length - 1] + (mode === "step" ? 1 : 0)] } },
                    axes: [{ label: "cycle" }, { label: "events in the cycle", size: 60 }],
                    series: series
                }, mode === "step" ? [xs.concat([xs[xs.length - 1] + 1])].concat(cols.map(function (c) { return c.concat([c[c.length - 1]]); }))
                                   : [xs].concat(cols));
                holder.firstChild.setAttribute("data-mode", mode);
            }
            btn.addEventListener("click", function () {
                var mode = btn.getAttribute("data-mode") === "step" ? "linear" : "step";
                btn.setAttribute("data-mode", mode);
                btn.textContent = mode === "step" ? "linear" : "step";
                draw(mode);
            });
            draw("step");
        });
    })();

    /* "#show=ID": that section only (the tests' screenshots of each kind of chart). */
    var m = /show=([a-z-]+)/.exec(location.hash);
    if (m) {
        head.style.display = "none";
        Object.keys(sections).forEach(function (id) { if (id !== m[1]) sections[id].style.display = "none"; });
    }
    /* For the browser tests: "#sort=N" clicks column N of the results table (twice: "N,N"), "#click=toggle" every step/linear button. */
    var sm = /sort=([0-9,]+)/.exec(location.hash);
    if (sm) sm[1].split(",").forEach(function (c) { var th = document.querySelector("#table th[data-col='" + c + "']"); if (th) th.click(); });
    if (/click=toggle/.test(location.hash)) Array.prototype.forEach.call(document.querySelectorAll(".nb-toggle"), function (b) { b.click(); });
    if (!created) finish();
    root.setAttribute("data-created", String(created));
})();
