/**
 * The page's only stylesheet, inline (no external assets): one column on a phone, wide tables scroll inside
 * their own box so the page itself never scrolls sideways, and light or dark as the system asks.
 */
export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1c2330;--muted:#5d6778;--line:#dde1e8;
--ok:#137a3a;--warn:#9a6200;--bad:#b42318;--accent:#2952cc;--code:#eef1f6}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--card:#1b2029;--fg:#e4e8ef;--muted:#9aa4b5;
--line:#2d3440;--ok:#4cc47a;--warn:#e0a53a;--bad:#f07066;--accent:#8aa8ff;--code:#252c38}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
overflow-wrap:anywhere}
header{background:var(--card);border-bottom:1px solid var(--line);padding:.75rem 1rem}
header>div{max-width:1100px;margin:0 auto;padding:0 1rem}
header h1{font-size:1.15rem;margin:0}
header p{margin:.2rem 0 0;color:var(--muted);font-size:.9rem}
nav{display:flex;flex-wrap:wrap;gap:.35rem .9rem;margin-top:.5rem;font-size:.9rem}
a{color:var(--accent)}
main{max-width:1100px;margin:0 auto;padding:1rem}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem;margin:0 0 1rem}
h2{font-size:1.05rem;margin:.1rem 0 .6rem}
h3{font-size:.95rem;margin:.8rem 0 .3rem}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.5rem}
.stat{border:1px solid var(--line);border-radius:6px;padding:.4rem .6rem}
.stat b{display:block;font-size:1.3rem}
.stat span{color:var(--muted);font-size:.85rem}
.muted{color:var(--muted)}
.more{color:var(--muted);font-style:italic;margin:.3rem 0}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px}
code{padding:0 .25rem}
pre{padding:.6rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0;max-height:40rem;overflow-y:auto}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{overflow-wrap:normal;text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;white-space:nowrap}
.badge{display:inline-block;border-radius:999px;padding:0 .5rem;font-size:.8rem;border:1px solid currentColor}
.ok{color:var(--ok)}.warn{color:var(--warn)}.bad{color:var(--bad)}
details.skill{border-top:1px solid var(--line);padding:.35rem 0;content-visibility:auto;contain-intrinsic-size:auto 3.5rem}
details.skill>summary{cursor:pointer;list-style-position:outside;margin-left:1rem}
details.skill>summary .desc{color:var(--muted);font-size:.9rem;display:block}
.body{padding:.2rem 0 .4rem 1rem}
.names{font:13px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-spacing:.7em}
.files{font-size:.88rem;margin:.3rem 0}
ul.plain{margin:.2rem 0;padding-left:1.2rem}
dl.surfaces{display:grid;grid-template-columns:minmax(7rem,12rem) 1fr;gap:.2rem .6rem;margin:.3rem 0}
dl.surfaces dt{color:var(--muted);font-size:.85rem}
dl.surfaces dd{margin:0}
form.inline{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.3rem 0 .6rem}
input,select,button{font:inherit;padding:.3rem .5rem;border:1px solid var(--line);border-radius:6px;
background:var(--card);color:var(--fg);max-width:100%}
button{cursor:pointer}
.badge{white-space:nowrap}
@media (max-width:600px){main{padding:.5rem}section{padding:.6rem}dl.surfaces{grid-template-columns:1fr}
dl.surfaces dd{margin-bottom:.3rem}
table,tbody,tr,td{display:block;width:100%}thead{display:none}
tr{border-bottom:1px solid var(--line);padding:.3rem 0}td{border:0;padding:.1rem 0;overflow-wrap:anywhere}
td::before{content:attr(data-label);display:inline-block;min-width:6rem;color:var(--muted);font-size:.85rem}}
`;
