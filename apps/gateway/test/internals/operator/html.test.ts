import { describe, expect, it } from 'vitest';
import { html } from '../../../src/core/html.js';

describe('html', () => {
  it('escapes every interpolated string, in text and in quoted attributes', () => {
    const hostile = `"><script>alert('x')</script>&`;
    expect(html`<p title="${hostile}">${hostile}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
  });

  it('keeps markup made by html as it is, joins arrays, and leaves out null, undefined and false', () => {
    const items = ['a<b', 'c'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.text).toBe(
      '<ul><li>a&lt;b</li><li>c</li></ul>0',
    );
  });
});
