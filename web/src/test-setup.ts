import { configure } from '@testing-library/react';

// findBy* waits up to 1 s by default; a page rendered in jsdom on a loaded machine (CI, or tests
// beside other work) takes longer to settle. The wait ends as soon as the element appears.
configure({ asyncUtilTimeout: 5000 });
