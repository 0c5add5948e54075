// The report page's own script (crawler/report.py embeds it): builds every section from the
// JSON in #report-data. No library, nothing loaded from outside; text from the data is only
// ever set as text (textContent), never parsed as HTML.
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("report-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const STATUS = {
    ok: ["正常", "ok", "✓"],
    unhealthy: ["异常", "unhealthy", "!"],
    failed: ["失败", "FAILED", "✗"],
  };
  const EXIT = {
    0: "全部站点抓取完成且健康",
    1: "有站点失败",
    2: "命令行、参数或站点登记有误",
    3: "抓取完成，但有站点未通过健康检查",
    4: "运行被中断，结果不完整",
    75: "另一个运行正在进行",
  };
  const PALETTE = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83",
    "#bc4c00", "#6e7781", "#e85aad", "#4d2d00"];
  const siteColor = {};
  data.sites.forEach(function (site, i) { siteColor[site] = PALETTE[i % PALETTE.length]; });

  // h("a", {href: …}, child, …): an element; strings become text nodes.
  function h(tag, props) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (let i = 2; i < arguments.length; i++) {
      const child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }

  function safeUrl(url) {
    return /^https?:\/\//i.test(url || "") ? url : null;
  }

  function link(url, text) {
    const href = safeUrl(url);
    return href ? h("a", { href: href, target: "_blank", rel: "noopener noreferrer" }, text)
      : h("span", {}, text);
  }

  // A problem's text with each URL in it a link (a trailing ":" or "." is not part of it).
  function linkified(text) {
    const out = document.createDocumentFragment();
    const pattern = /https?:\/\/[^\s"'<>，。、；）)]+/g;
    let from = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      const url = match[0].replace(/[:.,;!?]+$/, "");
      out.append(text.slice(from, match.index), link(url, url));
      from = match.index + url.length;
      pattern.lastIndex = from;
    }
    out.append(text.slice(from));
    return out;
  }

  function number(value) {
    return value === null || value === undefined ? "–" : Number(value).toLocaleString("zh-CN");
  }

  function numCell(value, alarm) {
    const cls = "num" + (!value ? " zero" : alarm ? " hot" : "");
    return h("td", { class: cls }, number(value));
  }

  function badge(status) {
    const label = STATUS[status] || ["未抓取", "–", "–"];
    return h("span", { class: "badge " + (STATUS[status] ? status : "absent") }, label[0],
      h("small", {}, label[1]));
  }

  function dot(site) {
    const node = h("span", { class: "dot" });
    node.style.background = siteColor[site] || "#6e7781";
    return node;
  }

  // "20261130T101500Z-4242" → that time, in the reader's time zone.
  function runTime(runId, short) {
    const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/.exec(runId || "");
    if (!m) return runId;
    const when = new Date(Date.UTC(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
    const options = short ? { month: "2-digit", day: "2-digit", hour: "2-digit",
      minute: "2-digit", hour12: false }
      : { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit",
        minute: "2-digit", hour12: false };
    return when.toLocaleString("zh-CN", options);
  }

  function section(id, title, note, wide) {
    const node = h("section", { id: id, class: wide ? "wide" : null },
      h("h2", {}, title, note ? h("small", {}, note) : null));
    return node;
  }

  // -- the header -----------------------------------------------------------------------
  function subtitle() {
    const run = data.run;
    const generated = new Date(data.generated_at).toLocaleString("zh-CN", { hour12: false });
    let text = "生成于 " + generated + " · 最近一次运行 " + runTime(data.run_id) +
      "（" + data.run_id + "）";
    if (run && run.exit_status !== null && run.exit_status !== undefined) {
      text += " · 退出状态 " + run.exit_status + "：" + (EXIT[run.exit_status] || "");
    }
    document.getElementById("subtitle").textContent = text;
  }

  // -- the last run ---------------------------------------------------------------------
  function lastRun() {
    const box = section("last-run", "最近一次运行", "每个站点的状态与计数", true);
    const sites = data.run ? data.run.sites : [];
    if (!sites.length) {
      box.append(h("p", { class: "empty" }, "这次运行没有站点的汇总。"));
      return box;
    }
    const head = h("tr", {}, h("th", {}, "站点"), h("th", {}, "状态"),
      h("th", { class: "num" }, "新增"), h("th", { class: "num" }, "更新"),
      h("th", { class: "num" }, "文章页失败"), h("th", { class: "num" }, "HTTP 错误"),
      h("th", { class: "num" }, "列表页"), h("th", { class: "num" }, "未变 (304)"),
      h("th", { class: "num" }, "读到文章"), h("th", { class: "num" }, "秒"));
    const body = h("tbody");
    for (const s of sites) {
      body.append(h("tr", { "data-site": s.site },
        h("th", { scope: "row" }, dot(s.site), link(s.url, s.site)),
        h("td", {}, badge(s.status)),
        numCell(s.new), numCell(s.changed),
        numCell(s.post_failures_count, true), numCell(s.http_errors, true),
        numCell(s.pages_fetched), numCell(s.pages_unchanged), numCell(s.posts_seen),
        h("td", { class: "num" }, s.duration_s ?? "–")));
    }
    box.append(h("table", { id: "runs-table" }, h("thead", {}, head), body));

    const problems = h("ul", { class: "problems", id: "problems" });
    for (const s of sites) {
      for (const problem of s.problems) {
        problems.append(h("li", { "data-site": s.site }, badge(s.status), " ",
          h("b", {}, s.site), "：", linkified(problem)));
      }
      if (s.problems_more) {
        problems.append(h("li", {}, s.site + "：另有 " + s.problems_more +
          " 个问题（见 summary.json）"));
      }
      if (s.post_failures.length) {
        const list = h("ul", {});
        for (const failure of s.post_failures) list.append(h("li", {}, linkified(failure)));
        if (s.post_failures_more) {
          list.append(h("li", {}, "……另有 " + s.post_failures_more + " 篇（见 summary.json）"));
        }
        problems.append(h("li", { "data-site": s.site },
          h("details", {}, h("summary", {}, s.site + "：" + s.post_failures_count +
            " 个文章页未能读取（文章保留列表页信息，下次运行重试）"), list)));
      }
    }
    if (problems.childNodes.length) box.append(problems);
    for (const note of (data.run && data.run.notes) || []) {
      box.append(h("p", { class: "note" }, linkified(note)));
    }
    return box;
  }

  // -- the runs strip -------------------------------------------------------------------
  function history() {
    const runs = data.history;
    const box = section("history", "近 " + runs.length + " 次运行",
      "每格一次运行，最新在右；悬停查看问题", true);
    const names = data.sites.filter(function (site) {
      return runs.some(function (run) { return site in run.sites; });
    });
    if (!names.length) {
      box.append(h("p", { class: "empty" }, "还没有运行记录。"));
      return box;
    }
    const head = h("tr", {}, h("th", {}, "站点"));
    for (const run of runs) {
      head.append(h("th", { class: "num", title: run.run_id +
        (run.partial ? "（中断）" : "") }, runTime(run.run_id, true)));
    }
    head.append(h("th", {}, "最近出问题"));
    const body = h("tbody");
    for (const site of names) {
      let lastBad = null;
      const row = h("tr", { "data-site": site }, h("th", { scope: "row" }, dot(site), site));
      for (const run of runs) {
        const outcome = run.sites[site];
        const status = outcome ? outcome[0] : null;
        const label = STATUS[status] || ["未抓取", "–", "–"];
        if (status && status !== "ok") lastBad = run;
        const tip = runTime(run.run_id) + " · " + label[0] + (outcome && outcome[1]
          ? " · " + outcome[1] : "");
        row.append(h("td", { class: "cell" }, h("span", {
          class: "cell " + (STATUS[status] ? status : "absent"), title: tip,
          "data-status": status || "absent",
        }, label[2])));
      }
      if (lastBad) row.className = "broke";
      row.append(h("td", { class: lastBad ? "hot" : "zero" },
        lastBad ? runTime(lastBad.run_id, true) + " " + STATUS[lastBad.sites[site][0]][0]
          : "无"));
      body.append(row);
    }
    box.append(h("table", { class: "strip", id: "history-table" }, h("thead", {}, head), body));
    box.append(h("p", { class: "note" }, "✓ 正常 · ! 异常（健康检查未通过） · ✗ 失败 · " +
      "– 该次运行未抓取此站点"));
    return box;
  }

  // -- the newest posts -----------------------------------------------------------------
  function newestPosts() {
    const posts = data.posts;
    const box = section("newest", "最新文章",
      "各站点合并，按发表时间；共 " + number(data.post_total) + " 篇，列出最新 " +
      number(posts.length) + " 篇");
    const input = h("input", { id: "filter", type: "search", placeholder: "筛选：标题、摘要或站点",
      "aria-label": "筛选文章" });
    const select = h("select", { id: "site-filter", "aria-label": "按站点筛选" },
      h("option", { value: "" }, "全部站点"));
    const present = data.sites.filter(function (site) {
      return posts.some(function (post) { return post.site === site; });
    });
    for (const site of present) select.append(h("option", { value: site }, site));
    const shown = h("span", { id: "post-count", class: "note" });
    box.append(h("div", { class: "filters" }, input, select, shown));

    const list = h("ol", { class: "posts", id: "posts" });
    const rows = [];
    for (const post of posts) {
      const meta = [post.site, post.date || "无日期"];
      if (post.views !== null && post.views !== undefined) meta.push("阅读 " + number(post.views));
      const item = h("li", { "data-site": post.site },
        h("div", {}, link(post.url, post.title), post.gone ? h("span", {
          class: "badge failed", title: "文章页返回 404/410" }, "已删除") : null),
        h("div", { class: "meta" }, dot(post.site), meta.join(" · ")),
        post.summary ? h("div", { class: "sum" }, post.summary) : null);
      list.append(item);
      rows.push([item, post.site, (post.title + " " + post.summary + " " + post.site)
        .toLowerCase()]);
    }
    if (!posts.length) list.append(h("li", { class: "empty" }, "还没有带日期的文章。"));
    box.append(list);

    function apply() {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      const site = select.value;
      let count = 0;
      for (const [item, itemSite, text] of rows) {
        const visible = (!site || itemSite === site) &&
          words.every(function (word) { return text.includes(word); });
        item.hidden = !visible;
        if (visible) count++;
      }
      shown.textContent = "显示 " + count + " / " + rows.length + " 篇";
    }
    input.addEventListener("input", apply);
    select.addEventListener("change", apply);
    apply();
    return box;
  }

  // -- trending -------------------------------------------------------------------------
  function trending() {
    const box = section("trending", "阅读增长最多", "近 " + data.trending_days +
      " 天，来自每次运行记下的阅读数");
    if (!data.trending.length) {
      box.append(h("p", { class: "empty" }, "近 " + data.trending_days +
        " 天没有文章的阅读数增长（需要两次以上运行，且站点显示阅读数）。"));
      return box;
    }
    const body = h("tbody");
    data.trending.forEach(function (post, i) {
      body.append(h("tr", { "data-site": post.site },
        h("td", { class: "num" }, i + 1),
        h("td", {}, link(post.url, post.title), h("div", { class: "note" }, dot(post.site),
          post.site)),
        h("td", { class: "num hot", title: number(post.from) + " → " + number(post.to) },
          "+" + number(post.gain)),
        h("td", { class: "num" }, number(post.to))));
    });
    box.append(h("table", { id: "trending-table" }, h("thead", {}, h("tr", {},
      h("th", { class: "num" }, "#"), h("th", {}, "文章"), h("th", { class: "num" }, "增长"),
      h("th", { class: "num" }, "阅读"))), body));
    return box;
  }

  // -- posts per week -------------------------------------------------------------------
  function chart() {
    const weeks = data.weeks.starts;
    const sites = Object.keys(data.weeks.counts);
    const box = section("weekly", "每周发表文章数", weeks.length ? "最近 " + weeks.length +
      " 周，按站点堆叠" : null);
    if (!weeks.length || !sites.length) {
      box.append(h("p", { class: "empty" }, "还没有带日期的文章。"));
      return box;
    }
    const width = 460, height = 200, left = 30, right = 6, top = 8, bottom = 22;
    const totals = weeks.map(function (_, i) {
      return sites.reduce(function (sum, site) { return sum + data.weeks.counts[site][i]; }, 0);
    });
    const max = Math.max(1, Math.max.apply(null, totals));
    const step = (width - left - right) / weeks.length;
    const y = function (value) { return top + (height - top - bottom) * (1 - value / max); };
    const chartSvg = svg("svg", { id: "week-chart", viewBox: "0 0 " + width + " " + height,
      width: "100%", role: "img", "aria-label": "每周发表文章数" });
    for (const tick of [0, Math.round(max / 2), max]) {
      chartSvg.append(svg("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick),
        stroke: "#eaeef2" }));
      const label = svg("text", { x: left - 4, y: y(tick) + 4, "text-anchor": "end" });
      label.textContent = tick;
      chartSvg.append(label);
    }
    weeks.forEach(function (start, i) {
      let base = 0;
      for (const site of sites) {
        const value = data.weeks.counts[site][i];
        if (!value) continue;
        const rect = svg("rect", { class: "bar", x: (left + i * step + step * 0.12).toFixed(1),
          y: y(base + value).toFixed(1), width: (step * 0.76).toFixed(1),
          height: (y(base) - y(base + value)).toFixed(1), fill: siteColor[site] || "#6e7781",
          "data-site": site });
        const tip = svg("title");
        tip.textContent = site + " · " + start + " 这一周：" + value + " 篇";
        rect.append(tip);
        chartSvg.append(rect);
        base += value;
      }
      // Every fourth Monday, counted back from the last week, so the newest is always named.
      if ((weeks.length - 1 - i) % 4 === 0) {
        const last = i === weeks.length - 1;  // the newest label ends at the bar: not cut off
        const label = svg("text", { x: (left + i * step + (last ? step : step / 2)).toFixed(1),
          y: height - 6, "text-anchor": last ? "end" : "middle" });
        label.textContent = start.slice(5);
        chartSvg.append(label);
      }
    });
    box.append(chartSvg);
    const legend = h("div", { class: "legend" });
    for (const site of sites) legend.append(h("span", {}, dot(site), site));
    box.append(legend, h("p", { class: "note" }, "横轴为每周的周一（文章所在站点的日期）。"));
    return box;
  }

  subtitle();
  const side = h("div", { id: "side" });
  side.append(trending(), chart());
  side.style.display = "grid";
  side.style.gap = "16px";
  side.style.alignContent = "start";
  document.getElementById("report").append(lastRun(), history(), newestPosts(), side);
})();
