// Tailwind CSS v4 runs as a PostCSS plugin in Next's CSS pipeline (app/global.css imports it).
export default { plugins: { '@tailwindcss/postcss': {} } };
