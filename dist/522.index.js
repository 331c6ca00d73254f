export const id = 522;
export const ids = [522];
export const modules = {

/***/ 1522:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   connect: () => (/* binding */ connect)
/* harmony export */ });
/* harmony import */ var _actions_github__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(2413);
// Loaded with a dynamic import only when a GitHub feature applies: Octokit stays out of the main bundle.

/** Octokit at GITHUB_API_URL (getOctokit's default), without retries: every call is made once. */
function connect(token, userAgent) {
    return (0,_actions_github__WEBPACK_IMPORTED_MODULE_0__/* .getOctokit */ .Q)(token, { userAgent });
}


/***/ })

};
