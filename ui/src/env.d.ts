/** Vite's `?inline` imports: the CSS text, for the widget's shadow root. */
declare module '*.css?inline' {
  const css: string;
  export default css;
}
declare module '*.css';
