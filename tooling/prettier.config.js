/**
 * The house format. printWidth 120: most of the tree already keeps to it, and it is the width CONTRIBUTING's
 * examples and the longest readable signatures need. Everything else is Prettier's default.
 */
export default {
  printWidth: 120,
};
